/**
 * Counts HTTP requests in flight so the global loader can cover the screen while any is
 * pending. Kept outside React so the fetch wrapper can use it without a component.
 */

let pending = 0;
const listeners = new Set<() => void>();

function emit(): void {
  listeners.forEach((listener) => listener());
}

export function requestStarted(): void {
  pending += 1;
  emit();
}

export function requestFinished(): void {
  pending = Math.max(0, pending - 1);
  emit();
}

export function pendingRequests(): number {
  return pending;
}

export function subscribePending(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
