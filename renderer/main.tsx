/**
 * Entry point: pick the transport (Electron preload or browser-mode HTTP), then render the
 * window inside React Query and a top-level error boundary. A missing token or a crash
 * shows a readable message, never a blank page.
 */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { TransportContext } from './api/queries.js';
import { chooseTransport, takeHashParams } from './api/transport.js';
import { App } from './App.js';
import { ErrorBoundary } from './components/ErrorBoundary.js';
import { actions } from './state/store.js';
import { applyTheme, readThemeChoice } from './state/theme.js';
import './perf.js';
import './styles/theme.css';
import './styles/layout.css';
import './styles/turns.css';
import './styles/panels.css';

// Before the first paint, so a chosen theme never flashes the other one.
applyTheme(readThemeChoice());
const hash = takeHashParams();
const transport = chooseTransport(hash);
const root = createRoot(document.getElementById('root')!);

if ('error' in transport) {
  root.render(
    <div className="fatal">
      <h1>Compaction Studio</h1>
      <p>{transport.error}</p>
    </div>,
  );
} else {
  const client = new QueryClient({
    defaultOptions: {
      queries: { refetchOnWindowFocus: false, retry: 1, staleTime: 10_000 },
    },
  });
  const session = Number(hash.get('session'));
  // A deep-linked session opens at once: its first turns are fetched alongside the session list.
  if (Number.isInteger(session) && session > 0) actions.selectSession(session);
  root.render(
    <StrictMode>
      <ErrorBoundary area="window">
        <TransportContext.Provider value={transport}>
          <QueryClientProvider client={client}>
            <App initialSessionId={Number.isInteger(session) && session > 0 ? session : null} />
          </QueryClientProvider>
        </TransportContext.Provider>
      </ErrorBoundary>
    </StrictMode>,
  );
}
