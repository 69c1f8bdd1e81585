/** A minimal event emitter shaped like VS Code's, so the model can be tested without `vscode`. */

export interface Disposable {
  dispose(): void;
}

export type Event<T> = (listener: (value: T) => unknown) => Disposable;

export class Emitter<T> implements Disposable {
  private readonly listeners = new Set<(value: T) => unknown>();

  readonly event: Event<T> = (listener) => {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  };

  fire(value: T): void {
    for (const listener of [...this.listeners]) listener(value);
  }

  dispose(): void {
    this.listeners.clear();
  }
}

/** Runs `fn` every `ms` until disposed; tests pass their own. */
export type Every = (ms: number, fn: () => void) => Disposable;

export const every: Every = (ms, fn) => {
  const handle = setInterval(fn, ms);
  return { dispose: () => clearInterval(handle) };
};
