/**
 * Links the window follows to the outside (a link in a transcript, a docs link): they open
 * in the system browser, never in the app, and only after the user said yes for a host
 * not yet allowed. A transcript is hostile text: a click must not silently hand the OS an
 * arbitrary URL. "Always open links to <host>" is remembered (services/settings-store.ts).
 * Electron's dialog and shell come in as parameters, so this is tested without Electron.
 */
import type { MessageBoxOptions, MessageBoxReturnValue } from 'electron';

/** Only http(s) leaves the app; file:, javascript:, custom schemes and junk never do. */
export function isExternalHttpUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === 'https:' || u.protocol === 'http:';
  } catch {
    return false;
  }
}

export interface ExternalLinkDeps {
  askUser(options: MessageBoxOptions): Promise<Pick<MessageBoxReturnValue, 'response' | 'checkboxChecked'>>;
  openExternal(url: string): Promise<void>;
  /** The hosts the user allowed, as `host[:port]`. */
  allowedHosts(): readonly string[];
  allowHost(host: string): void;
}

/** The buttons of the question, by index (`response`). */
const OPEN = 0;

/**
 * Opens `url` in the system browser: at once for an allowed host, after a confirmation
 * otherwise (Cancel is the default and the Escape answer). Resolves to whether it opened.
 */
export async function openExternalLink(url: string, deps: ExternalLinkDeps): Promise<boolean> {
  if (!isExternalHttpUrl(url)) return false;
  const { host } = new URL(url);
  if (!deps.allowedHosts().includes(host)) {
    const shown = url.length > 300 ? `${url.slice(0, 300)}…` : url;
    const answer = await deps.askUser({
      type: 'question',
      buttons: ['Open in browser', 'Cancel'],
      defaultId: 1,
      cancelId: 1,
      noLink: true,
      title: 'Open a link',
      message: `Open a link to ${host} in your browser?`,
      detail: shown,
      checkboxLabel: `Always open links to ${host}`,
      checkboxChecked: false,
    });
    if (answer.response !== OPEN) return false;
    if (answer.checkboxChecked) deps.allowHost(host);
  }
  await deps.openExternal(url);
  return true;
}
