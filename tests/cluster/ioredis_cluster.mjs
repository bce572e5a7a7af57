// ioredis's Cluster against the cluster: discovers the nodes from one, writes and reads keys of
// every master's slots, and (with ebb's types) TLOG and TREG keys, following MOVED where ioredis
// cannot tell a command's slot itself. Usage:
// node ioredis_cluster.mjs <node_modules dir> <1: ebb's types too | 0> <a node's port>
// Every wait is bounded.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import path from 'node:path';

import { within } from '../support/within.mjs';

const [modules, ebbTypes, port] = process.argv.slice(2);
const require = createRequire(path.join(path.resolve(modules), 'x.js'));
const Redis = require('ioredis');

const cluster = new Redis.Cluster([{ host: '127.0.0.1', port: Number(port) }], {
  redisOptions: { connectTimeout: 2000, maxRetriesPerRequest: 3 },
  clusterRetryStrategy: (times) => (times > 10 ? null : 100),
});
try {
  await within(30000, (async () => {
    for (let i = 0; i < 500; i++) {
      assert.equal(await cluster.set(`io:${i}`, `v${i}`, 'EX', 3600), 'OK');
    }
    for (let i = 0; i < 500; i++) assert.equal(await cluster.get(`io:${i}`), `v${i}`);
    const masters = cluster.nodes('master');
    assert.equal(masters.length, 3);
    let total = 0;
    for (const m of masters) {
      const keys = await m.keys('io:*');
      assert.ok(keys.length > 100, `a master holds only ${keys.length} of the keys`);
      total += keys.length;
    }
    assert.equal(total, 500);
    if (ebbTypes === '1') {
      const ts = 1700000000000;
      for (let i = 0; i < 100; i++) {
        assert.equal(await cluster.call('TLOG', 'INS', `iolog:${i}`, `e${i}`, ts + i), 'OK');
        assert.equal(await cluster.call('TREG', 'SET', `ioreg:${i}`, `r${i}`, ts + i), 'OK');
      }
      for (let i = 0; i < 100; i++) {
        assert.deepEqual(await cluster.call('TLOG', 'GET', `iolog:${i}`), [[`e${i}`, ts + i]]);
        assert.deepEqual(await cluster.call('TREG', 'GET', `ioreg:${i}`), [`r${i}`, ts + i]);
      }
    }
  })(), 'ioredis Cluster');
  console.log('ioredis Cluster: ok');
} finally {
  cluster.disconnect();
}
