/**
 * `agentrl/wandb` — Weights & Biases run tracking as a Trainer metrics sink, through W&B's official TypeScript SDK
 * (`@wandb/sdk`, an optional peer dependency: install it beside agentrl).
 * @packageDocumentation
 */
export { wandbSink, type WandbSinkOptions } from './wandb-sink.js';
