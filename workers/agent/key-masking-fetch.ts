// A fetch for the model clients that keeps the API key out of provider errors. Some
// OpenAI-compatible servers echo the key they were sent ("Incorrect API key provided: sk-…"),
// and the client puts that text in its error, from where it would reach the run's `error`
// event, the checkpoint's task error, thread history and the logs. Masking the answer here,
// before the client reads it, keeps the key out of all of them at once.

const MASK = '***';

export function keyMaskingFetch(apiKey: string | undefined, base: typeof fetch = fetch): typeof fetch {
  // A key this short could match ordinary text; such keys are not secrets worth the damage.
  if (!apiKey || apiKey.length < 8) return base;
  return async (input, init) => {
    const response = await base(input, init);
    if (response.ok) return response;
    const text = await response.text();
    const body = text.replaceAll(apiKey, MASK);
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
