// node-redis's time-series API (@redis/time-series, part of redis@4) against a spawned ebb-server,
// every reply parsed by the library and compared with a reference computed here, from the samples
// the test added, with RedisTimeSeries 1.10's definitions (its compaction.c and filter_iterator.c).
// The server is restarted once on its directory: the series, their labels and rules remain.
// Usage: node node_series_test.mjs <ebb-server> <work dir> <node_modules dir>. Every wait is
// bounded; the server is stopped on every exit.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';

import { within } from '../support/within.mjs';

const [serverPath, workDir, modulesDir] = process.argv.slice(2);
const require = createRequire(path.join(path.resolve(modulesDir), 'x.js'));
const { createClient } = require('redis');
const { TimeSeriesAggregationType, TimeSeriesDuplicatePolicies, TimeSeriesReducers,
        TimeSeriesBucketTimestamp } = require('@redis/time-series');

// ---- the server -------------------------------------------------------------------------------

fs.mkdirSync(workDir, { recursive: true });
const dataDir = fs.mkdtempSync(path.join(workDir, 'series-data.'));
let server = null;

async function freePort() {
  const probe = net.createServer();
  await new Promise((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

async function canConnect(port) {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
  });
}

async function startServer(port) {
  const log = fs.openSync(`${dataDir}.log`, 'a');
  const child = spawn(serverPath, ['--port', String(port), '--dir', dataDir],
                      { stdio: ['ignore', log, log] });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  server = { child, exited };
  for (let i = 0; i < 100; ++i) {  // up to 10 s
    if (await canConnect(port)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`ebb-server did not listen on ${port}`);
}

async function stopServer() {
  if (!server) return;
  const { child, exited } = server;
  server = null;
  child.kill('SIGTERM');
  try {
    assert.equal(await within(30000, exited, 'ebb-server exit'), 0);
  } catch (e) {
    child.kill('SIGKILL');
    throw e;
  }
}

async function connect(port) {
  const client = createClient({ socket: { port, reconnectStrategy: false } });
  client.on('error', () => {});  // a failed command rejects its own promise
  await within(5000, client.connect(), 'node-redis connect');
  return client;
}

// ---- the reference ----------------------------------------------------------------------------

// The start of the bucket holding ts: ts - ((ts - align) mod bucket), the modulo non-negative.
function bucketStart(ts, bucket, align) {
  return ts - ((((ts - align) % bucket) + bucket) % bucket);
}

function interpolate(a, b, ts) {
  return a.value + ((ts - a.timestamp) * (b.value - a.value)) / (b.timestamp - a.timestamp);
}

function stats(values) {
  const n = values.length;
  const sum = values.reduce((s, v) => s + v, 0);
  const mean = sum / n;
  const squares = values.reduce((s, v) => s + (v - mean) * (v - mean), 0);
  return { n, sum, mean, varP: squares / n, varS: n > 1 ? squares / (n - 1) : 0 };
}

// The value of a set of values (a bucket's, or one timestamp's values in a GROUPBY group).
function reduce(type, values) {
  const s = stats(values);
  switch (type.toUpperCase()) {
    case 'AVG': return s.mean;
    case 'SUM': return s.sum;
    case 'MIN': return Math.min(...values);
    case 'MAX': return Math.max(...values);
    case 'RANGE': return Math.max(...values) - Math.min(...values);
    case 'COUNT': return s.n;
    case 'FIRST': return values[0];
    case 'LAST': return values[values.length - 1];
    case 'STD.P': return Math.sqrt(s.varP);
    case 'STD.S': return Math.sqrt(s.varS);
    case 'VAR.P': return s.varP;
    case 'VAR.S': return s.varS;
    default: throw new Error(`no reference for ${type}`);
  }
}

// twa over one bucket's samples `b` (those of the range): the area under the line joining the
// samples, from the bucket's start (or the range's, if later) when a sample precedes the bucket,
// else from its first sample, to the bucket's end (or the range's, if earlier) when one follows,
// else to its last sample; divided by that span (a span of 0: the last value).
function twa(all, b, ta, tb) {
  const first = b[0];
  const last = b[b.length - 1];
  const prev = all.filter((s) => s.timestamp < first.timestamp).at(-1);
  const next = all.find((s) => s.timestamp > last.timestamp);
  let area = 0;
  let from = first.timestamp;
  let to = last.timestamp;
  if (prev) {
    from = ta;
    area += ((interpolate(prev, first, ta) + first.value) * (first.timestamp - ta)) / 2;
  }
  for (let i = 1; i < b.length; ++i) {
    area += ((b[i - 1].value + b[i].value) * (b[i].timestamp - b[i - 1].timestamp)) / 2;
  }
  if (next) {
    to = tb;
    area += ((last.value + interpolate(last, next, tb)) * (tb - last.timestamp)) / 2;
  }
  return to === from ? last.value : area / (to - from);
}

// An empty bucket (EMPTY): sum and count 0, last the value before it, twa the mean of the line
// joining the samples around it at the bucket's two ends, every other aggregator NaN.
function emptyValue(type, all, ta, tb) {
  const before = all.filter((s) => s.timestamp < ta).at(-1);
  const after = all.find((s) => s.timestamp >= ta);
  switch (type) {
    case 'SUM': case 'COUNT': return 0;
    case 'LAST': return before.value;
    case 'TWA': return (interpolate(before, after, ta) + interpolate(before, after, tb)) / 2;
    default: return NaN;
  }
}

// TS.RANGE key from to AGGREGATION type bucket [ALIGN align] [BUCKETTIMESTAMP bts] [EMPTY] over
// `all` (every visible sample, oldest first). twa's buckets are clipped to [from, to], and with
// EMPTY its empty buckets reach from the range's start to its first sample and from its last to
// the range's end (all of its buckets when it has none) when the series has a sample before and
// one after them.
function aggregate(all, { type, bucket, from = 0, to = Number.MAX_SAFE_INTEGER, align = 0,
                          bts = '-', empty = false }) {
  const shift = { '-': 0, '~': Math.floor(bucket / 2), '+': bucket }[bts];
  const buckets = new Map();
  for (const s of all.filter((x) => x.timestamp >= from && x.timestamp <= to)) {
    const start = bucketStart(s.timestamp, bucket, align);
    if (!buckets.has(start)) buckets.set(start, []);
    buckets.get(start).push(s);
  }
  const out = [];
  const fill = (first, end) => {  // the empty buckets [first, end)
    for (let e = first; e < end; e += bucket) {
      out.push({ timestamp: e + shift,
                 value: emptyValue(type, all, Math.max(e, from), Math.min(e + bucket, to)) });
    }
  };
  const edges = empty && type === 'TWA';
  const before = all.some((s) => s.timestamp < from);
  const firstStart = bucketStart(from, bucket, align);
  const lastStart = bucketStart(to, bucket, align);
  let previous = null;
  for (const [start, b] of buckets) {
    if (previous !== null && empty) fill(previous + bucket, start);
    if (previous === null && edges && before) fill(firstStart, start);
    const ta = Math.max(start, from);
    const tb = Math.min(start + bucket, to);
    const value = type === 'TWA' ? twa(all, b, ta, tb) : reduce(type, b.map((s) => s.value));
    out.push({ timestamp: start + shift, value });
    previous = start;
  }
  if (edges && (previous !== null || before) && all.some((s) => s.timestamp > to)) {
    fill(previous === null ? firstStart : previous + bucket, lastStart + bucket);
  }
  return out;
}

function assertSamples(got, want, what) {
  assert.equal(got.length, want.length, `${what}: ${got.length} samples, want ${want.length}`);
  for (let i = 0; i < want.length; ++i) {
    const [g, w] = [got[i], want[i]];
    assert.equal(g.timestamp, w.timestamp, `${what}: sample ${i}'s timestamp`);
    if (Number.isNaN(w.value)) {
      assert.ok(Number.isNaN(g.value), `${what}: sample ${i} is ${g.value}, want NaN`);
    } else {
      const tolerance = 1e-9 * Math.max(1, Math.abs(w.value));
      assert.ok(Math.abs(g.value - w.value) <= tolerance,
                `${what}: sample ${i} (${w.timestamp}) is ${g.value}, want ${w.value}`);
    }
  }
}

// ---- the data ---------------------------------------------------------------------------------

// 400 samples, irregularly spaced (250 ms apart, give or take 200), values in quarters between
// -12.5 and 12.5, and a gap (samples 150..169 missing) that leaves empty buckets.
function makeSamples(base, seed) {
  const out = [];
  for (let i = 0; i < 400; ++i) {
    if (i >= 150 && i < 170) continue;
    out.push({ timestamp: base + i * 250 + ((i * 7) % 200),
               value: (((i * 37 + seed) % 101) - 50) / 4 });
  }
  return out;
}

const AGGREGATIONS = [...new Set(Object.values(TimeSeriesAggregationType))];
const REDUCERS = [...new Set(Object.values(TimeSeriesReducers))];

// ---- the checks -------------------------------------------------------------------------------

async function createAndAdd(r, model) {
  assert.equal(await r.ts.create('ts:a', {
    RETENTION: 0, DUPLICATE_POLICY: TimeSeriesDuplicatePolicies.LAST, CHUNK_SIZE: 128,
    LABELS: { sensor: 'temp', room: 'kitchen' },
  }), 'OK');
  await r.ts.create('ts:b', { LABELS: { sensor: 'temp', room: 'hall' } });
  await r.ts.create('ts:c', { LABELS: { sensor: 'humidity', room: 'kitchen' } });
  const a = makeSamples(100000, 0);
  const b = makeSamples(100000, 13);
  const c = makeSamples(100000, 29);
  // ts:a by TS.ADD; ts:b and ts:c by TS.MADD, 50 samples of each per call.
  for (const s of a) assert.equal(await r.ts.add('ts:a', s.timestamp, s.value), s.timestamp);
  for (let i = 0; i < b.length; i += 50) {
    const batch = [];
    for (const s of b.slice(i, i + 50)) batch.push({ key: 'ts:b', ...s });
    for (const s of c.slice(i, i + 50)) batch.push({ key: 'ts:c', ...s });
    assert.deepEqual(await r.ts.mAdd(batch), batch.map((s) => s.timestamp));
  }
  // DUPLICATE_POLICY LAST takes the new value; ts:b's default (BLOCK) refuses it.
  a[10] = { timestamp: a[10].timestamp, value: 99.5 };
  assert.equal(await r.ts.add('ts:a', a[10].timestamp, 99.5), a[10].timestamp);
  await assert.rejects(r.ts.add('ts:b', b[10].timestamp, 1),
                       /update is not supported when DUPLICATE_POLICY is set to BLOCK mode/);
  // ON_DUPLICATE overrides the policy for one sample.
  b[11] = { timestamp: b[11].timestamp, value: Math.max(b[11].value, 7) };
  await r.ts.add('ts:b', b[11].timestamp, 7, { ON_DUPLICATE: TimeSeriesDuplicatePolicies.MAX });
  Object.assign(model, { 'ts:a': a, 'ts:b': b, 'ts:c': c });

  assert.deepEqual(await r.ts.get('ts:a'), a.at(-1));
  const info = await r.ts.info('ts:a');
  assert.equal(info.totalSamples, a.length);
  assert.equal(info.firstTimestamp, a[0].timestamp);
  assert.equal(info.lastTimestamp, a.at(-1).timestamp);
  assert.equal(info.retentionTime, 0);
  assert.equal(info.chunkSize, 128);
  // 380 samples, all after the first: every one in the tail (one chunk; 1,024 fold into blocks).
  assert.ok(info.chunkCount >= 1, `${info.chunkCount} chunks`);
  assert.ok(info.memoryUsage > 0);
  assert.equal(info.chunkType, 'compressed');
  assert.equal(info.duplicatePolicy, 'last');
  assert.deepEqual(info.labels, [{ name: 'sensor', value: 'temp' },
                                 { name: 'room', value: 'kitchen' }]);
  assert.equal(info.sourceKey, null);
  assert.deepEqual(info.rules, []);
  assert.equal((await r.ts.info('ts:b')).duplicatePolicy, null);
  // TS.INFO DEBUG: every block of at most CHUNK_SIZE bytes, then the tail (8 bytes a sample), in
  // order, holding every sample.
  const debug = await r.ts.infoDebug('ts:a');
  assert.equal(debug.keySelfName, 'ts:a');
  assert.equal(debug.totalSamples, a.length);
  assert.equal(debug.chunks.length, info.chunkCount);
  assert.equal(debug.chunks.reduce((n, c) => n + c.samples, 0), a.length);
  assert.equal(debug.chunks[0].startTimestamp, a[0].timestamp);
  assert.equal(debug.chunks.at(-1).endTimestamp, a.at(-1).timestamp);
  const tail = debug.chunks.at(-1);
  assert.equal(tail.size, 8 * tail.samples);
  debug.chunks.forEach((c, i) => {
    const bound = c === tail ? 8 * c.samples : 128;
    assert.ok(c.startTimestamp <= c.endTimestamp && c.size > 0 && c.size <= bound, `chunk ${i}`);
    if (i > 0) assert.ok(debug.chunks[i - 1].endTimestamp < c.startTimestamp, `chunk ${i}`);
    assert.ok(Math.abs(Number(c.bytesPerSample) - c.size / c.samples) < 1e-5, `chunk ${i}`);
  });
}

async function ranges(r, model) {
  const a = model['ts:a'];
  assertSamples(await r.ts.range('ts:a', '-', '+'), a, 'TS.RANGE - +');
  assertSamples(await r.ts.revRange('ts:a', '-', '+'), [...a].reverse(), 'TS.REVRANGE - +');
  const [from, to] = [a[40].timestamp + 1, a[300].timestamp - 1];
  const inside = a.filter((s) => s.timestamp >= from && s.timestamp <= to);
  assertSamples(await r.ts.range('ts:a', from, to), inside, 'TS.RANGE from to');
  assertSamples(await r.ts.range('ts:a', from, to, { COUNT: 7 }), inside.slice(0, 7), 'COUNT');
  assertSamples(await r.ts.revRange('ts:a', from, to, { COUNT: 7 }),
                [...inside].reverse().slice(0, 7), 'TS.REVRANGE COUNT');
  assertSamples(await r.ts.range('ts:a', '-', '+', { FILTER_BY_VALUE: { min: -2, max: 3.25 } }),
                a.filter((s) => s.value >= -2 && s.value <= 3.25), 'FILTER_BY_VALUE');
  const picked = [a[3].timestamp, a[77].timestamp, a[200].timestamp];
  assertSamples(await r.ts.range('ts:a', '-', '+', { FILTER_BY_TS: picked }),
                [a[3], a[77], a[200]], 'FILTER_BY_TS');

  for (const type of AGGREGATIONS) {
    for (const bucket of [1000, 3700]) {
      const agg = { type, timeBucket: bucket };
      let want = aggregate(a, { type, bucket });
      assertSamples(await r.ts.range('ts:a', '-', '+', { AGGREGATION: agg }), want,
                    `${type} ${bucket}`);
      assertSamples(await r.ts.revRange('ts:a', '-', '+', { AGGREGATION: agg }),
                    [...want].reverse(), `REVRANGE ${type} ${bucket}`);
      // A range whose ends fall inside buckets.
      want = aggregate(a, { type, bucket, from, to });
      assertSamples(await r.ts.range('ts:a', from, to, { AGGREGATION: agg }), want,
                    `${type} ${bucket} over [${from}, ${to}]`);
      assertSamples(await r.ts.revRange('ts:a', from, to, { AGGREGATION: agg }),
                    [...want].reverse(), `REVRANGE ${type} ${bucket} over [${from}, ${to}]`);
    }
    // EMPTY over ranges that start, end, or start and end in the gap.
    const gapStart = a[149].timestamp + 1500;
    const gapEnd = a[149].timestamp + 3700;
    for (const [f, t] of [[gapStart, a[300].timestamp], [a[20].timestamp - 1, gapEnd],
                          [gapStart, gapEnd]]) {
      assertSamples(await r.ts.range('ts:a', f, t, {
        AGGREGATION: { type, timeBucket: 1000, EMPTY: true } }),
                    aggregate(a, { type, bucket: 1000, from: f, to: t, empty: true }),
                    `${type} EMPTY over [${f}, ${t}]`);
      assertSamples(await r.ts.revRange('ts:a', f, t, {
        AGGREGATION: { type, timeBucket: 1000, EMPTY: true } }),
                    aggregate(a, { type, bucket: 1000, from: f, to: t, empty: true }).reverse(),
                    `${type} REVRANGE EMPTY over [${f}, ${t}]`);
    }
    // EMPTY over the gap, ALIGN and BUCKETTIMESTAMP.
    const spec = { type, bucket: 1000, empty: true };
    assertSamples(await r.ts.range('ts:a', '-', '+', {
      AGGREGATION: { type, timeBucket: 1000, EMPTY: true } }), aggregate(a, spec), `${type} EMPTY`);
    const aligned = { type, bucket: 1000, align: 333, bts: '~' };
    assertSamples(await r.ts.range('ts:a', '-', '+', {
      ALIGN: 333,
      AGGREGATION: { type, timeBucket: 1000, BUCKETTIMESTAMP: TimeSeriesBucketTimestamp.MID },
    }), aggregate(a, aligned), `${type} ALIGN 333 BUCKETTIMESTAMP ~`);
    const high = TimeSeriesBucketTimestamp.HIGH;
    assertSamples(await r.ts.range('ts:a', '-', '+', {
      COUNT: 5, AGGREGATION: { type, timeBucket: 1000, BUCKETTIMESTAMP: high },
    }), aggregate(a, { type, bucket: 1000, bts: '+' }).slice(0, 5),
                  `${type} COUNT 5 BUCKETTIMESTAMP +`);
  }
}

// TS.INCRBY / TS.DECRBY: add to the newest value, creating the series with their options.
async function counters(r) {
  assert.equal(await r.ts.incrBy('ts:count', 5, { TIMESTAMP: 1000, LABELS: { kind: 'counter' } }),
               1000);
  assert.equal(await r.ts.incrBy('ts:count', 3, { TIMESTAMP: 2000 }), 2000);
  assert.equal(await r.ts.decrBy('ts:count', 2.5, { TIMESTAMP: 3000 }), 3000);
  assert.deepEqual(await r.ts.range('ts:count', '-', '+'),
                   [{ timestamp: 1000, value: 5 }, { timestamp: 2000, value: 8 },
                    { timestamp: 3000, value: 5.5 }]);
  assert.deepEqual(await r.ts.get('ts:count'), { timestamp: 3000, value: 5.5 });
  assert.deepEqual((await r.ts.info('ts:count')).labels, [{ name: 'kind', value: 'counter' }]);
  await assert.rejects(r.ts.incrBy('ts:count', 1, { TIMESTAMP: 2500 }),
                       /TSDB: timestamp must be equal to or higher than the maximum existing/);
  // TS.ALTER and TS.DEL.
  assert.equal(await r.ts.alter('ts:count', { RETENTION: 50000, LABELS: { kind: 'gauge' } }), 'OK');
  const info = await r.ts.info('ts:count');
  assert.equal(info.retentionTime, 50000);
  assert.deepEqual(info.labels, [{ name: 'kind', value: 'gauge' }]);
  assert.equal(await r.ts.del('ts:count', 1500, 2500), 1);
  assert.deepEqual((await r.ts.range('ts:count', '-', '+')).map((s) => s.timestamp), [1000, 3000]);
}

function labelsOf(key) {
  return { 'ts:a': { sensor: 'temp', room: 'kitchen' }, 'ts:b': { sensor: 'temp', room: 'hall' },
           'ts:c': { sensor: 'humidity', room: 'kitchen' } }[key];
}

async function multiSeries(r, model) {
  assert.deepEqual(await r.ts.queryIndex('sensor=temp'), ['ts:a', 'ts:b']);
  assert.deepEqual(await r.ts.queryIndex(['room=kitchen', 'sensor!=temp']), ['ts:c']);
  assert.deepEqual(await r.ts.queryIndex('room=(hall,kitchen)'), ['ts:a', 'ts:b', 'ts:c']);
  assert.deepEqual(await r.ts.queryIndex(['sensor=temp', 'nosuch=']), ['ts:a', 'ts:b']);
  assert.deepEqual(await r.ts.queryIndex('room=attic'), []);

  assert.deepEqual(await r.ts.mGet('room=kitchen'),
                   ['ts:a', 'ts:c'].map((key) => ({ key, sample: model[key].at(-1) })));
  assert.deepEqual(await r.ts.mGetWithLabels('sensor=temp'),
                   ['ts:a', 'ts:b'].map((key) => ({ key, labels: labelsOf(key),
                                                    sample: model[key].at(-1) })));
  assert.deepEqual((await r.ts.mGetWithLabels('sensor=temp', { SELECTED_LABELS: 'room' }))
                     .map((e) => e.labels), [{ room: 'kitchen' }, { room: 'hall' }]);

  const from = model['ts:a'][20].timestamp;
  const to = model['ts:a'][120].timestamp;
  const window = (key) => model[key].filter((s) => s.timestamp >= from && s.timestamp <= to);
  let got = await r.ts.mRange(from, to, 'sensor=temp');
  assert.deepEqual(got.map((e) => e.key), ['ts:a', 'ts:b']);
  for (const e of got) assertSamples(e.samples, window(e.key), `TS.MRANGE ${e.key}`);
  got = await r.ts.mRangeWithLabels(from, to, ['room=kitchen'],
                                    { AGGREGATION: { type: 'MAX', timeBucket: 2000 } });
  assert.deepEqual(got.map((e) => [e.key, e.labels]),
                   ['ts:a', 'ts:c'].map((key) => [key, labelsOf(key)]));
  for (const e of got) {
    assertSamples(e.samples, aggregate(model[e.key], { type: 'MAX', bucket: 2000, from, to }),
                  `TS.MRANGE AGGREGATION max ${e.key}`);
  }
  got = await r.ts.mRevRange(from, to, 'sensor=temp', { COUNT: 3 });
  for (const e of got) {
    assertSamples(e.samples, window(e.key).reverse().slice(0, 3), `TS.MREVRANGE ${e.key}`);
  }

  // GROUPBY room REDUCE r: per room, timestamp by timestamp, r over the group's values.
  for (const reducer of REDUCERS) {
    got = await r.ts.mRangeWithLabels(from, to, 'room=(kitchen,hall)',
                                      { GROUPBY: { label: 'room', reducer } });
    assert.deepEqual(got.map((e) => e.key), ['room=hall', 'room=kitchen']);
    for (const e of got) {
      const room = e.key.slice('room='.length);
      const members = ['ts:a', 'ts:b', 'ts:c'].filter((k) => labelsOf(k).room === room);
      assert.deepEqual(e.labels, { room, __reducer__: reducer.toLowerCase(),
                                   __source__: members.join(',') });
      const byTs = new Map();
      for (const key of members) {
        for (const s of window(key)) {
          if (!byTs.has(s.timestamp)) byTs.set(s.timestamp, []);
          byTs.get(s.timestamp).push(s.value);
        }
      }
      const want = [...byTs.keys()].sort((x, y) => x - y)
        .map((ts) => ({ timestamp: ts, value: reduce(reducer, byTs.get(ts)) }));
      assertSamples(e.samples, want, `GROUPBY room REDUCE ${reducer}: ${e.key}`);
    }
  }
  got = await r.ts.mRange('-', '+', 'sensor=temp',
                          { AGGREGATION: { type: 'AVG', timeBucket: 5000 },
                            GROUPBY: { label: 'sensor', reducer: TimeSeriesReducers.MAX } });
  const perSeries = ['ts:a', 'ts:b'].map((k) => aggregate(model[k], { type: 'AVG', bucket: 5000 }));
  assert.deepEqual(got.map((e) => e.key), ['sensor=temp']);
  assertSamples(got[0].samples, perSeries[0].map((s, i) => ({
    timestamp: s.timestamp, value: Math.max(s.value, perSeries[1][i].value) })),
                'AGGREGATION avg then GROUPBY sensor REDUCE max');
}

// TS.CREATERULE: every bucket the source finishes is aggregated into the destination.
async function rules(r, model) {
  await r.ts.create('ts:src', { LABELS: { sensor: 'rule' } });
  await r.ts.create('ts:src:avg');
  await r.ts.create('ts:src:max');
  assert.equal(await r.ts.createRule('ts:src', 'ts:src:avg', TimeSeriesAggregationType.AVG, 1000),
               'OK');
  assert.equal(await r.ts.createRule('ts:src', 'ts:src:max', TimeSeriesAggregationType.MAX, 5000),
               'OK');
  await assert.rejects(r.ts.createRule('ts:a', 'ts:src:avg', TimeSeriesAggregationType.SUM, 10),
                       /TSDB: the destination key already has a src rule/);
  const src = makeSamples(50000, 5).slice(0, 200);
  for (const s of src) await r.ts.add('ts:src', s.timestamp, s.value);
  model['ts:src'] = src;
  const info = await r.ts.info('ts:src');
  assert.deepEqual(info.rules, [{ key: 'ts:src:avg', timeBucket: 1000, aggregationType: 'AVG' },
                                { key: 'ts:src:max', timeBucket: 5000, aggregationType: 'MAX' }]);
  assert.equal((await r.ts.info('ts:src:avg')).sourceKey, 'ts:src');
  // The destination holds each finished bucket; the open one (holding the newest sample) is not.
  const finished = (bucket, type) => {
    const open = bucketStart(src.at(-1).timestamp, bucket, 0);
    return aggregate(src, { type, bucket }).filter((s) => s.timestamp < open);
  };
  assertSamples(await r.ts.range('ts:src:avg', '-', '+'), finished(1000, 'AVG'), 'rule avg 1000');
  assertSamples(await r.ts.range('ts:src:max', '-', '+'), finished(5000, 'MAX'), 'rule max 5000');
  // LATEST reports the open bucket's partial aggregate.
  const open = aggregate(src, { type: 'AVG', bucket: 1000 }).at(-1);
  assertSamples([await r.ts.get('ts:src:avg', { LATEST: true })], [open], 'TS.GET LATEST');

  assert.equal(await r.ts.deleteRule('ts:src', 'ts:src:max'), 'OK');
  await assert.rejects(r.ts.deleteRule('ts:src', 'ts:src:max'),
                       /TSDB: compaction rule does not exist/);
  assert.deepEqual((await r.ts.info('ts:src')).rules,
                   [{ key: 'ts:src:avg', timeBucket: 1000, aggregationType: 'AVG' }]);
  const before = await r.ts.range('ts:src:max', '-', '+');
  const later = src.at(-1).timestamp + 20000;
  await r.ts.add('ts:src', later, 1);
  src.push({ timestamp: later, value: 1 });
  assert.deepEqual(await r.ts.range('ts:src:max', '-', '+'), before,
                   'a deleted rule writes nothing');
  assertSamples(await r.ts.range('ts:src:avg', '-', '+'), finished(1000, 'AVG'),
                'rule avg after a sample opened a new bucket');
}

// RETENTION: samples older than the newest minus the retention are gone.
async function retention(r) {
  await r.ts.create('ts:ret', { RETENTION: 1000 });
  for (let ts = 1000; ts <= 3000; ts += 500) await r.ts.add('ts:ret', ts, ts / 100);
  assert.deepEqual((await r.ts.range('ts:ret', '-', '+')).map((s) => s.timestamp),
                   [2000, 2500, 3000]);
  await r.ts.add('ts:ret', 4200, 42);
  assert.deepEqual(await r.ts.range('ts:ret', '-', '+'),
                   [{ timestamp: 4200, value: 42 }]);
  await assert.rejects(r.ts.add('ts:ret', 3100, 1), /TSDB: Timestamp is older than retention/);
  const info = await r.ts.info('ts:ret');
  assert.equal(info.retentionTime, 1000);
  assert.equal(info.totalSamples, 1);
  assert.equal(info.firstTimestamp, 4200);
  assert.deepEqual(await r.ts.range('ts:ret', 0, 4199,
                                    { AGGREGATION: { type: 'COUNT', timeBucket: 100000 } }), []);
}

async function afterRestart(r, model) {
  for (const key of ['ts:a', 'ts:b', 'ts:c', 'ts:src']) {
    assertSamples(await r.ts.range(key, '-', '+'), model[key], `${key} after the restart`);
  }
  const info = await r.ts.info('ts:a');
  assert.equal(info.duplicatePolicy, 'last');
  assert.equal(info.chunkSize, 128);
  assert.deepEqual(info.labels, [{ name: 'sensor', value: 'temp' },
                                 { name: 'room', value: 'kitchen' }]);
  assert.deepEqual(await r.ts.queryIndex('sensor=temp'), ['ts:a', 'ts:b']);
  assert.equal((await r.ts.info('ts:ret')).retentionTime, 1000);
  // The rule still flows: a sample two buckets on finishes the open bucket into ts:src:avg.
  const src = model['ts:src'];
  const next = src.at(-1).timestamp + 2000;
  await r.ts.add('ts:src', next, 3);
  src.push({ timestamp: next, value: 3 });
  const got = await r.ts.range('ts:src:avg', '-', '+');
  const last = bucketStart(src.at(-2).timestamp, 1000, 0);
  assert.deepEqual(got.at(-1), { timestamp: last, value: src.at(-2).value });
}

const port = await freePort();
let failed = false;
try {
  await startServer(port);
  const model = {};
  let r = await connect(port);
  await createAndAdd(r, model);
  await ranges(r, model);
  await counters(r);
  await multiSeries(r, model);
  await rules(r, model);
  await retention(r);
  await r.quit();
  await stopServer();
  await startServer(port);
  r = await connect(port);
  await afterRestart(r, model);
  await r.quit();
  console.log(`node-redis ts.*: create, add, mAdd, incrBy, info, infoDebug, ranges with ` +
              `${AGGREGATIONS.length} aggregators, mRange GROUPBY, mGet, queryIndex, rules, ` +
              'retention, restart OK');
} catch (e) {
  failed = true;
  console.error(e);
  try {
    console.error(fs.readFileSync(`${dataDir}.log`, 'utf8').split('\n').slice(-20).join('\n'));
  } catch {}
} finally {
  if (server) server.child.kill('SIGKILL');
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.rmSync(`${dataDir}.log`, { force: true });
}
process.exit(failed ? 1 : 0);
