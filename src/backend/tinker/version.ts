import { agentrlVersion } from '../../util/package-version.js';

/** The installed agentrl version, for `User-Agent: agentrl/<version>`. */
export const AGENTRL_VERSION: string = agentrlVersion(import.meta.url);
