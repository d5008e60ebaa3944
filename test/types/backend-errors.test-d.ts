import { expectTypeOf, test } from 'vitest';
import type {
  AgentRLError,
  BackendAuthError,
  BackendErrorCategory,
  BackendInputError,
  BackendRequestError,
  BackendUnavailableError,
  TinkerBackend,
  TrainingBackend,
} from 'agentrl';

test('backend error codes narrow', () => {
  const e = {} as BackendUnavailableError | BackendAuthError | BackendRequestError | BackendInputError;
  if (e.code === 'BACKEND_UNAVAILABLE') expectTypeOf(e).toEqualTypeOf<BackendUnavailableError>();
  else if (e.code === 'BACKEND_AUTH') expectTypeOf(e).toEqualTypeOf<BackendAuthError>();
  else if (e.code === 'BACKEND_REQUEST') {
    expectTypeOf(e).toEqualTypeOf<BackendRequestError>();
    expectTypeOf(e.category).toEqualTypeOf<BackendErrorCategory>();
  } else expectTypeOf(e).toEqualTypeOf<BackendInputError>();
  expectTypeOf<BackendUnavailableError>().toMatchTypeOf<AgentRLError>();
});

test('tinkerBackend returns a TrainingBackend', () => {
  expectTypeOf<TinkerBackend>().toMatchTypeOf<TrainingBackend>();
});
