/** Lets pending promise callbacks run. */
export const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Follows a promise's state without awaiting it. */
export function track<T>(promise: Promise<T>): { readonly state: 'pending' | 'resolved' | 'rejected'; readonly error: unknown } {
  const tracked = { state: 'pending' as 'pending' | 'resolved' | 'rejected', error: undefined as unknown };
  void promise.then(
    () => (tracked.state = 'resolved'),
    (err: unknown) => {
      tracked.state = 'rejected';
      tracked.error = err;
    },
  );
  return tracked;
}
