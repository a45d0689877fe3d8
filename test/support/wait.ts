/** Poll a condition until it holds, failing after a bound (never a fixed sleep). */
export async function until<T>(check: () => T | undefined | null | false | Promise<T | undefined | null | false>, timeoutMs = 5_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
