// Stops a process when its parent goes away. `npm start` may be killed in ways that do not
// forward signals to our process tree (npm's shell wrapper dies alone); polling the parent
// id is the portable way to leave no orphan behind.
export function onParentExit(callback: () => void, intervalMs = 1000): void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid !== parent) {
      clearInterval(timer);
      callback();
    }
  }, intervalMs);
  timer.unref();
}
