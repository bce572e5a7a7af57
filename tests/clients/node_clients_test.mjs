// ioredis and node-redis against ebb: multi()/exec(), WATCH, subscribe. Usage:
// node node_clients_test.mjs <port> <node_modules dir>. Every wait is bounded.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import path from 'node:path';

import { within } from '../support/within.mjs';

const port = Number(process.argv[2]);
const require = createRequire(path.join(path.resolve(process.argv[3]), 'x.js'));
const Redis = require('ioredis');
const { createClient } = require('redis');

async function ioredis() {
  const r = new Redis({ port, lazyConnect: true });
  const sub = new Redis({ port, lazyConnect: true });
  await r.connect();
  await sub.connect();
  await r.flushall();
  assert.deepEqual(await r.multi().set('k', '1').incr('k').get('k').exec(),
                   [[null, 'OK'], [null, 2], [null, '2']]);
  await r.watch('w');
  await sub.set('w', 'other');  // not yet subscribed: a normal client
  assert.equal(await r.multi().set('w', 'mine').exec(), null);
  const got = new Promise((resolve) => sub.on('message', (ch, msg) => resolve([ch, msg])));
  assert.equal(await sub.subscribe('news'), 1);
  assert.equal(await r.publish('news', 'hello'), 1);
  assert.deepEqual(await within(5000, got, 'ioredis message'), ['news', 'hello']);
  // defineCommand: a script run by EVALSHA, loaded by EVAL when the server answers NOSCRIPT.
  await r.script('FLUSH');
  r.defineCommand('casSet', {
    numberOfKeys: 1,
    lua: "if redis.call('get', KEYS[1]) == ARGV[1] then " +
         "return redis.call('set', KEYS[1], ARGV[2]) end return nil",
  });
  await r.set('cas', 'old');
  assert.equal(await r.casSet('cas', 'old', 'new'), 'OK');
  assert.equal(await r.casSet('cas', 'old', 'newer'), null);
  assert.equal(await r.get('cas'), 'new');
  const piped = await r.pipeline().casSet('cas', 'new', 'p1').casSet('cas', 'p1', 'p2').exec();
  assert.deepEqual(piped, [[null, 'OK'], [null, 'OK']]);
  assert.equal(await r.get('cas'), 'p2');
  r.disconnect();
  sub.disconnect();
}

async function nodeRedis() {
  const r = createClient({ socket: { port } });
  await r.connect();
  const sub = r.duplicate();
  await sub.connect();
  assert.deepEqual(await r.multi().set('k', '1').incr('k').get('k').exec(), ['OK', 2, '2']);
  await r.watch('w2');
  await r.set('w2', 'changed by me, before MULTI');
  await assert.rejects(r.multi().set('w2', 'x').exec(), (e) => e.constructor.name === 'WatchError');
  const got = new Promise((resolve) => sub.subscribe('news', (msg, ch) => resolve([ch, msg])));
  await within(5000, (async () => {
    for (;;) {  // subscribe() resolves its listener only; publish until the subscription is on
      if ((await r.publish('news', 'hello')) === 1) return;
      await new Promise((res) => setTimeout(res, 20));
    }
  })(), 'node-redis subscription');
  assert.deepEqual(await within(5000, got, 'node-redis message'), ['news', 'hello']);
  await sub.quit();
  await r.quit();
}

await ioredis();
await nodeRedis();
console.log('ioredis and node-redis: multi/exec, WATCH, subscribe, defineCommand OK');
