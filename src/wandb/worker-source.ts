/**
 * The code of the thread that runs `@wandb/sdk` (see wandb-sink.ts for why it runs apart): loads the SDK from the
 * path the sink resolved, `init` with the options it was given, then `log` and `finish` in the order the messages come.
 * Replies `ready` (with the run's URL), `failed` (with the reason) or `finished`. The SDK reports some failures by
 * throwing inside its own message listener; here that ends this thread only, and the sink sees the thread's `error`.
 * @internal
 */
export const WANDB_WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { pathToFileURL } = require('node:url');
const reason = (e) => String((e && e.message) || e);
const run = import(pathToFileURL(workerData.sdkPath).href).then(async (m) => {
  const wandb = m.default && typeof m.default.init === 'function' ? m.default : m.wandb;
  const r = await wandb.init(workerData.init);
  parentPort.postMessage({ type: 'ready', url: r.url(), id: r.id, entity: r.entity, project: r.project });
  return r;
});
run.catch((e) => parentPort.postMessage({ type: 'failed', message: reason(e) }));
parentPort.on('message', (msg) => {
  if (msg.type === 'log') run.then((r) => r.log(msg.data, msg.step), () => undefined);
  else if (msg.type === 'finish') {
    run.then((r) => r.finish(0)).then(
      () => parentPort.postMessage({ type: 'finished' }),
      (e) => parentPort.postMessage({ type: 'failed', message: reason(e) }),
    );
  }
});
`;
