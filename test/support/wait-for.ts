// Polls until a condition holds: for state that settles asynchronously (never for timing).
export async function waitFor<T>(probe: () => Promise<T | undefined | null | false>, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Waits for a line `<series> <value>` in the /metrics of the API at `baseUrl`. */
export async function waitForMetric(baseUrl: string, series: string, value: number): Promise<void> {
  await waitFor(async () => (await (await fetch(`${baseUrl}/metrics`)).text()).split('\n').includes(`${series} ${value}`), `${series} = ${value}`);
}
