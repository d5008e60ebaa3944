#!/usr/bin/env bash
# The package as a user gets it: `npm pack`, then projects OUTSIDE the repository that install the tarball.
#  1. a program using defineTool, Trainer, codeInterpreter (test/package/consumer/main.ts) type-checks with the
#     newest zod 4 and the lowest (4.0.0), and runs one training step with each; a strict project with
#     `skipLibCheck: false` (test/package/strict-consumer) type-checks against agentrl's declarations with no optional peer;
#     `agentrl/wandb` names its missing peer, then streams one step through the real `@wandb/sdk` once installed;
#  2. with zod 3 installed (peer warning silenced), importing agentrl fails with ZodVersionError naming the zod found;
#  3. `agentrl init` scaffolds a project that installs from the tarball, type-checks and runs a shortened job to its
#     held-out table (a screenshot there, without playwright-core, names the install); then `--template mcp` the same.
# A plain `npm install`, as a user runs it: the native packages (better-sqlite3, isolated-vm, dockerode) and
# playwright-core are optional peers, so nothing is compiled; step 1 checks that they are absent.
#   bash scripts/check-package.sh [--no-build]    (--no-build: dist/ is already built, e.g. by npm ci's prepare)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=$(mktemp -d /tmp/agentrl-package.XXXXXX)
trap 'rm -rf "$work"' EXIT
install=(npm install --no-audit --no-fund --prefer-offline --loglevel=error)
dev() { node -p "require('$root/package.json').devDependencies['$1']"; }

if [ "${1:-}" = "--no-build" ]; then
  [ -f dist/index.js ] && [ -f dist/cli.js ] || { echo "dist/ is not built"; exit 1; }
  tgz=$(npm pack --ignore-scripts --silent --pack-destination "$work" | tail -1)
else
  tgz=$(npm pack --silent --pack-destination "$work" | tail -1)   # prepare builds dist/
fi
tgz="$work/$tgz"
echo "== packed $(basename "$tgz"): $(du -k "$tgz" | cut -f1) kB packed, $(tar tzvf "$tgz" | awk '{s+=$3} END {printf "%.0f", s/1024}') kB unpacked, $(tar tzf "$tgz" | wc -l) files"
listing=$(tar tzf "$tgz")
for f in package/dist/index.js package/dist/index.d.ts package/dist/cli.js package/dist/otel.js package/dist/wandb.js package/dist/wandb.cjs package/scripts/install-system-deps.sh package/docs/api/agentrl.api.md package/assets/local-model/tokenizer.json package/assets/templates/tool-env/src/main.ts package/assets/templates/mcp/src/memory-server.mjs package/README.md; do
  grep -qx "$f" <<< "$listing" || { echo "missing from the tarball: $f"; exit 1; }
done

echo "== 1. a user's project: install the tarball with the newest zod 4, type-check, one training step"
app="$work/app"
mkdir -p "$app" && cd "$app"
printf '{ "name": "app", "private": true, "type": "module" }\n' > package.json
cp "$root/assets/templates/tool-env/tsconfig.json" tsconfig.json
mkdir src && cp "$root/test/package/consumer/main.ts" src/main.ts
"${install[@]}" "$tgz" 'zod@^4' "typescript@$(dev typescript)" "tsx@$(dev tsx)" "@types/node@$(dev @types/node)"
echo "zod $(node -p "require('zod/package.json').version") (newest in ^4 that npm resolved)"
for m in better-sqlite3 isolated-vm dockerode playwright-core; do
  [ ! -e "node_modules/$m" ] || { echo "a plain install brought the optional peer $m"; exit 1; }
done
# No engine warning beyond the one the README names: every installed package's `engines.node` admits this Node.
node -e "
  const fs = require('fs'), path = require('path'), semver = require('$root/node_modules/semver');
  const bad = [];
  const walk = (dir) => { for (const e of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
    if (e.startsWith('.')) continue;
    const p = path.join(dir, e);
    if (e.startsWith('@')) { walk(p); continue; }
    const j = path.join(p, 'package.json');
    if (fs.existsSync(j)) { const m = JSON.parse(fs.readFileSync(j, 'utf8')); const r = m.engines && m.engines.node;
      if (typeof r === 'string' && !semver.satisfies(process.version, r) && m.name !== '@cortex-js/compute-engine') bad.push(m.name + '@' + m.version + ' wants node ' + r); }
    walk(path.join(p, 'node_modules'));
  } };
  walk('node_modules');
  if (bad.length) { console.error('packages whose engines exclude Node ' + process.version + ':\\n  ' + bad.join('\\n  ')); process.exit(1); }
  console.log('engines: every installed package admits Node ' + process.version + ' (but @cortex-js/compute-engine, see the README)');
"
npx tsc -p tsconfig.json
echo "== strict project, skipLibCheck false: agentrl's declarations type-check without any optional peer installed"
mkdir strict && cp "$root/test/package/strict-consumer/strict.ts" "$root/test/package/strict-consumer/tsconfig.json" strict/
npx tsc -p strict/tsconfig.json
npx tsx src/main.ts | tee "$work/run.log"
grep -qx 'consumer ok' "$work/run.log"
echo "== agentrl/wandb: without @wandb/sdk a MissingPeerDependencyError; with it, one step streamed by the real SDK"
cp "$root/test/package/consumer/wandb.ts" "$root/test/helpers/wandb-server.ts" src/   # the stand-in itself, not the repo's re-export
npx tsx src/wandb.ts missing | tee "$work/wandb.log"
grep -qx 'wandb missing ok' "$work/wandb.log"
"${install[@]}" "@wandb/sdk@$(dev @wandb/sdk)"
npx tsc -p tsconfig.json
npx tsx src/wandb.ts installed | grep -qx 'wandb ok'
node -e "require('agentrl/wandb').wandbSink({ apiKey: 'x' }).close().then(() => console.log('wandb ok (CommonJS require)'))"

echo "== lowest zod in the peer range: 4.0.0"
"${install[@]}" zod@4.0.0
npx tsc -p tsconfig.json
npx tsx src/main.ts | grep -qx 'consumer ok'
echo "zod 4.0.0: type-checks and runs"

echo "== 2. zod 3 in the project (peer warning silenced): a ZodVersionError that names it"
"${install[@]}" --legacy-peer-deps zod@3
if npx tsx src/main.ts > "$work/zod3.log" 2>&1; then echo "ran with zod 3?"; exit 1; fi
grep -q "agentrl needs zod ^4.0.0 (a peer dependency), found zod 3.x or older" "$work/zod3.log" || { cat "$work/zod3.log"; exit 1; }
echo "zod 3 refused: $(grep -o "agentrl's zod import: agentrl needs zod ^4.0.0 (a peer dependency), found .*toJSONSchema)" "$work/zod3.log" | head -1)"

echo "== 3. agentrl init → install from the tarball → type-check → shortened job to the held-out table"
"${install[@]}" 'zod@^4'
npx agentrl init "$work/scaffold"   # no --agentrl: the tarball this project installed agentrl from
grep -q "\"agentrl\": \"file:$tgz\"" "$work/scaffold/package.json" || { echo "init without --agentrl did not write the tarball it came from"; cat "$work/scaffold/package.json"; exit 1; }
cd "$work/scaffold"
"${install[@]}"
npm run --silent typecheck
npm start --silent -- --sft-steps 40 --rl-steps 1 --eval-problems 4 | tee "$work/init.log"
grep -q 'avg@2 .*95% CI .*pass@2' "$work/init.log" && grep -q '^cold start + RL ' "$work/init.log"
echo "== a screenshot without the optional peer playwright-core: a MissingPeerDependencyError naming the install"
if npx agentrl dashboard runs/* --screenshot shot.png > "$work/shot.log" 2>&1; then echo "screenshot without playwright-core?"; exit 1; fi
grep -q 'needs playwright-core, an optional peer dependency that is not installed: npm install --save-dev playwright-core@' "$work/shot.log" || { cat "$work/shot.log"; exit 1; }
echo "== agentrl init --template mcp (reusing the install above): type-check, shortened job over the MCP memory server"
npx agentrl init "$work/scaffold-mcp" --template mcp --agentrl "file:$tgz"
cd "$work/scaffold-mcp"
cp -a "$work/scaffold/node_modules" node_modules   # npm then only adds the MCP SDK and the memory server
"${install[@]}"
npm run --silent typecheck
npm start --silent -- --sft-steps 20 --rl-steps 1 --eval-problems 2 | tee "$work/init-mcp.log"
grep -q 'avg@2 .*95% CI .*pass@2' "$work/init-mcp.log" && grep -q '^cold start + RL ' "$work/init-mcp.log"
echo "== package ok"
