/** Toasts: successes fade, errors stay until dismissed so a bad file's message can be read. */
import { actions, useStudio } from '../state/store.js';

export function Notices() {
  const notices = useStudio((s) => s.notices);
  if (notices.length === 0) return null;
  return (
    <div className="notices" aria-live="polite">
      {notices.map((n) => (
        <div key={n.id} className={`notice notice-${n.kind}`} role={n.kind === 'error' ? 'alert' : 'status'} data-testid={`notice-${n.kind}`}>
          <div className="notice-body">
            <div className="notice-title">{n.title}</div>
            {n.message ? <div className="notice-message">{n.message}</div> : null}
          </div>
          <button type="button" className="btn btn-ghost btn-small" aria-label="Dismiss" onClick={() => actions.dismiss(n.id)}>
            ✕
          </button>
        </div>
      ))}
    </div>
  );
}
