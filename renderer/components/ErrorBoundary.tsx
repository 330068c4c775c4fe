/**
 * Never a blank screen: a render error shows what failed and a way back, scoped to the
 * panel that failed (the DAG can fail without taking the turn list with it).
 */
import { Component, type ErrorInfo, type ReactNode } from 'react';

interface Props {
  /** Where this boundary sits ("DAG", "turn list"...), for the message. */
  area: string;
  children: ReactNode;
  /** Changing it clears the error (e.g. another session selected). */
  resetKey?: unknown;
}

interface State {
  error: Error | null;
  resetKey: unknown;
}

export class ErrorBoundary extends Component<Props, State> {
  override state: State = { error: null, resetKey: this.props.resetKey };

  static getDerivedStateFromError(error: Error): Partial<State> {
    return { error };
  }

  static getDerivedStateFromProps(props: Props, state: State): Partial<State> | null {
    if (props.resetKey !== state.resetKey) return { resetKey: props.resetKey, error: null };
    return null;
  }

  override componentDidCatch(error: Error, info: ErrorInfo): void {
    console.error(`[${this.props.area}]`, error, info.componentStack);
  }

  override render(): ReactNode {
    const { error } = this.state;
    if (!error) return this.props.children;
    return (
      <div className="error-panel" role="alert" data-testid="error-boundary">
        <div className="error-title">The {this.props.area} failed to render</div>
        <pre className="error-message">{error.message}</pre>
        <button type="button" className="btn" onClick={() => this.setState({ error: null })}>
          Try again
        </button>
      </div>
    );
  }
}
