import 'server-only';

// One switch per process (route bundles may load their own copy of this module).
const g = globalThis as unknown as { __ensembleRunEventCaptureOff?: boolean };

/** Whether run events are recorded. Always on in the product; only the capture benchmark turns it off. */
export const runEventCaptureEnabled = (): boolean => g.__ensembleRunEventCaptureOff !== true;

/** Benchmark/test only: turn run event capture off (to measure what it costs) or back on. */
export function setRunEventCapture(on: boolean): void {
  g.__ensembleRunEventCaptureOff = !on;
}
