import { parseArgs } from 'node:util';
import { startDashboard } from 'agentrl/internal';
import { screenshotDashboard } from 'agentrl/internal';
import { UsageError } from 'agentrl/internal';
import { parseNumberFlag } from 'agentrl/internal';
import type { CliCommand, CliIo } from './registry.js';

const USAGE = `Usage: agentrl dashboard RUN_DIR [RUN_DIR …] [--port 6006] [--host 127.0.0.1] [--api-key KEY]
       agentrl dashboard RUN_DIR [RUN_DIR …] --screenshot OUT.png [--width 1400] [--height 1300]

A local web page that follows runs live: reward, correct, format, tool-call, loss, clip-fraction, KL and
timing curves, and a trajectory viewer (conversation, tool calls and interpreter output; trained tokens
vs masked tokens; reward, stop reason and advantage). Several runs side by side.

Options:
  --port <n>        TCP port (default 6006; 0 picks a free one)
  --host <addr>     bind address (default 127.0.0.1; a non-loopback address needs --api-key)
  --api-key <key>   require this key: scripts send Authorization: Bearer KEY; a browser opens
                    URL/?key=KEY once and keeps an HttpOnly session cookie (the key leaves the URL)
  --screenshot <f>  serve on a free port, wait until the page shows its data, open a trajectory,
                    write the picture to <f> (PNG; headless Chromium via playwright-core) and exit
  --width <px>, --height <px>   screenshot viewport (default 1400 × 1300)

Prints "listening on <url>" when ready; Ctrl-C stops it.`;

async function run(args: readonly string[], io: CliIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args],
      allowPositionals: true,
      strict: true,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        'api-key': { type: 'string' },
        screenshot: { type: 'string' },
        width: { type: 'string' },
        height: { type: 'string' },
      },
    });
  } catch (e) {
    io.stderr(`agentrl dashboard: ${(e as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  let port: number;
  let width: number;
  let height: number;
  try {
    if (positionals.length === 0) throw new UsageError('give a run directory');
    port = parseNumberFlag('port', values.port, { integer: true, min: 0, max: 65535, expects: '0–65535' }) ?? (values.screenshot !== undefined ? 0 : 6006);
    const size = { integer: true, min: 200, max: 8000 } as const;
    try {
      width = parseNumberFlag('width', values.width, size) ?? 1400;
      height = parseNumberFlag('height', values.height, size) ?? 1300;
    } catch (e) {
      throw new UsageError(`--width and --height expect 200–8000 pixels, got '${values.width ?? 1400}' × '${values.height ?? 1300}'`, { cause: e });
    }
    if (values.screenshot === '') throw new UsageError('--screenshot expects a file name');
  } catch (e) {
    io.stderr(`agentrl dashboard: ${(e as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  let dash;
  try {
    dash = await startDashboard({
      runDirs: positionals,
      port,
      ...(values.host ? { host: values.host } : {}),
      ...(values['api-key'] ? { apiKey: values['api-key'] } : {}),
    });
  } catch (e) {
    io.stderr(`agentrl dashboard: ${(e as Error).message}\n`);
    return 1;
  }
  const browserUrl = values['api-key'] ? `${dash.url}/?key=${encodeURIComponent(values['api-key'])}` : dash.url;
  if (values.screenshot !== undefined) {
    try {
      await screenshotDashboard({ url: browserUrl, out: values.screenshot, width, height });
      io.stdout(`agentrl dashboard: screenshot written to ${values.screenshot}\n`);
      return 0;
    } catch (e) {
      io.stderr(`agentrl dashboard: ${(e as Error).message}\n`);
      return 1;
    } finally {
      await dash.close();
    }
  }
  io.stdout(`agentrl dashboard: listening on ${dash.url}\n`);
  if (values['api-key']) io.stdout(`agentrl dashboard: in a browser, open ${dash.url}/?key=… once (the key becomes an HttpOnly session cookie)\n`);
  await new Promise<void>((res) => (io.signal.aborted ? res() : io.signal.addEventListener('abort', () => res(), { once: true })));
  await dash.close();
  return 0;
}

/** `agentrl dashboard`: a live web view of run directories. */
export const dashboardCommand: CliCommand = { name: 'dashboard', summary: 'live web dashboard of runs (curves + trajectory viewer)', usage: USAGE, run };
