import { expectTypeOf, test } from 'vitest';
import type { AgentRLError, ConfigError, SandboxTimeoutError, Trainer, StepEvent, TrajectoryEvent, WarningCode } from 'agentrl';

declare const trainer: Trainer;

test('event listeners are typed by event name', () => {
  trainer.on('step', (e) => {
    expectTypeOf(e).toEqualTypeOf<StepEvent>();
    expectTypeOf(e.step).toBeNumber();
    expectTypeOf(e.metrics).toEqualTypeOf<Readonly<Record<string, number>>>();
  });
  trainer.on('trajectory', (e) => expectTypeOf(e).toEqualTypeOf<TrajectoryEvent>());
  trainer.on('warning', (e) => expectTypeOf(e.code).toEqualTypeOf<WarningCode>());
  // @ts-expect-error unknown event names are rejected
  trainer.on('stepp', () => {});
});

test('error codes narrow', () => {
  const e = {} as ConfigError | SandboxTimeoutError;
  if (e.code === 'SANDBOX_TIMEOUT') expectTypeOf(e).toEqualTypeOf<SandboxTimeoutError>();
  else expectTypeOf(e).toEqualTypeOf<ConfigError>();
  expectTypeOf<ConfigError>().toMatchTypeOf<AgentRLError>();
});
