// In the repository the stand-in lives in test/helpers; scripts/check-package.sh copies that file here in the user's project.
export * from '../../helpers/wandb-server.js';
