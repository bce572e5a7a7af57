// A bound on every wait of the Node client tests: `promise`, or an Error "<what>: nothing within
// <ms> ms" once `ms` milliseconds have passed without it settling.
export function within(ms, promise, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
