// ioredis with `sentinels`: asks the sentinels for the group's master, writes and reads through
// it, and checks it reached the server at <expected port>. Usage:
// node ioredis_sentinel.mjs <group name> <password> <expected port> <node_modules dir>
// <sentinel port>...
// Every wait is bounded.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import path from 'node:path';

import { within } from '../support/within.mjs';

const [name, password, expected, modules, ...sentinelPorts] = process.argv.slice(2);
const require = createRequire(path.join(path.resolve(modules), 'x.js'));
const Redis = require('ioredis');

const r = new Redis({
  sentinels: sentinelPorts.map((port) => ({ host: '127.0.0.1', port: Number(port) })),
  name,
  password,
  lazyConnect: true,
  maxRetriesPerRequest: 2,
  sentinelMaxConnections: 3,
});
try {
  await within(10000, r.connect(), 'connect through the sentinels');
  assert.equal(await within(5000, r.set('via:ioredis', 'written'), 'SET'), 'OK');
  assert.equal(await within(5000, r.get('via:ioredis'), 'GET'), 'written');
  const info = await within(5000, r.info('server'), 'INFO server');
  assert.match(info, new RegExp(`\\r\\ntcp_port:${expected}\\r\\n`));
  const role = await within(5000, r.call('ROLE'), 'ROLE');
  assert.equal(role[0], 'master');
  console.log(`ioredis: wrote and read through the master at port ${expected}`);
} finally {
  r.disconnect();
}
