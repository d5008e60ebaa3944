import { parseArgs } from 'node:util';
import { UsageError } from 'agentrl/internal';
import { parseNumberFlag } from 'agentrl/internal';
import { downloadCheckpoint, listCheckpoints, type TinkerRestOptions } from 'agentrl/internal';
import { exportCheckpoint } from 'agentrl/internal';
import type { CliCommand, CliIo } from './registry.js';
import { isUsageFailure } from './usage.js';

const USAGE = `Usage: agentrl checkpoints <list|download|export> [options]

  agentrl checkpoints list [--run <training_run_id>] [--base-url URL] [--api-key KEY] [--json]
      checkpoints of one training run, or all of yours, on a Tinker server (agentrl serve, Tinker, SkyRL)
  agentrl checkpoints download <tinker://run/weights/name> <dir> [--base-url URL] [--api-key KEY] [--max-bytes N]
      fetches the checkpoint's archive (streamed, size-capped, SHA-256 printed) and extracts it into <dir>
  agentrl checkpoints export <checkpoint-dir> <out-dir> [--format safetensors] [--tokenizer-dir DIR]
      an embedded-engine checkpoint (saveState folder or downloaded agentrl serve archive) as a Hugging Face-style
      folder: config.json, model.safetensors, tokenizer files

--base-url defaults to TINKER_BASE_URL, --api-key to TINKER_API_KEY.`;

function rest(values: { 'base-url'?: string | undefined; 'api-key'?: string | undefined }): TinkerRestOptions {
  return {
    ...(values['base-url'] !== undefined ? { baseUrl: values['base-url'] } : {}),
    ...(values['api-key'] !== undefined ? { apiKey: values['api-key'] } : {}),
  };
}

async function run(args: readonly string[], io: CliIo): Promise<number> {
  const [sub, ...rest_] = args;
  try {
    const { values, positionals } = parseArgs({
      args: rest_,
      strict: true,
      allowPositionals: true,
      options: {
        run: { type: 'string' },
        'base-url': { type: 'string' },
        'api-key': { type: 'string' },
        json: { type: 'boolean' },
        'max-bytes': { type: 'string' },
        format: { type: 'string' },
        'tokenizer-dir': { type: 'string' },
      },
    });
    switch (sub) {
      case 'list': {
        if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
        const list = await listCheckpoints(rest(values), values.run);
        if (values.json) io.stdout(JSON.stringify(list, null, 2) + '\n');
        else for (const c of list) io.stdout(`${c.tinkerPath}\t${c.type}\t${c.time}\t${c.sizeBytes ?? '?'} bytes\n`);
        return 0;
      }
      case 'download': {
        if (positionals.length !== 2) throw new UsageError('download needs <tinker-path> <dir>');
        const maxBytes = parseNumberFlag('max-bytes', values['max-bytes'], { integer: true, above: 0 });
        const r = await downloadCheckpoint(positionals[0]!, positionals[1]!, { ...rest(values), ...(maxBytes !== undefined ? { maxBytes } : {}) });
        io.stdout(
          `downloaded ${positionals[0]} → ${r.dir}: ${r.files.join(', ')} (${r.bytes} bytes, sha256 ${r.sha256}${r.verified ? ', server checksum verified' : ''})\n`,
        );
        return 0;
      }
      case 'export': {
        if (positionals.length !== 2) throw new UsageError('export needs <checkpoint-dir> <out-dir>');
        const format = values.format ?? 'safetensors';
        if (format !== 'safetensors') throw new UsageError(`--format '${format}' is not supported; use safetensors`);
        const files = await exportCheckpoint(positionals[0]!, positionals[1]!, {
          format,
          ...(values['tokenizer-dir'] !== undefined ? { tokenizerDir: values['tokenizer-dir'] } : {}),
        });
        io.stdout(`exported ${positionals[0]} → ${positionals[1]}: ${files.join(', ')}\n`);
        return 0;
      }
      default:
        throw new UsageError(sub === undefined ? 'missing sub-command' : `unknown sub-command '${sub}'`);
    }
  } catch (e) {
    const usage = isUsageFailure(e);
    io.stderr(`agentrl checkpoints: ${e instanceof Error ? e.message : String(e)}\n${usage ? `\n${USAGE}\n` : ''}`);
    return usage ? 2 : 1;
  }
}

/** `agentrl checkpoints list|download|export`: get trained weights out of a Tinker server and the embedded engine. */
export const checkpointsCommand: CliCommand = {
  name: 'checkpoints',
  summary: 'list, download and export trained checkpoints (Tinker servers, agentrl serve)',
  usage: USAGE,
  run,
};
