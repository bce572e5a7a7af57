// The Lua code that closes the sandbox (script_engine.h, "The sandbox"), run once per Lua state
// after the libraries and the redis table are in place, with the redis table libraries see while
// they load as its argument. It returns the error handler every script runs under, the
// read-only view of the globals that scripts see, the real globals table (where KEYS and ARGV
// are set for each run), the environment of libraries and functions, its metatable, and what
// that environment reads while a library loads.
#pragma once

namespace ebb::server::scripting {

inline constexpr char kSandboxLua[] = R"lua(
local load_redis = ...
local G = _G
local dbg = debug
local type, error, tostring, pairs = type, error, tostring, pairs
local rawset, setmetatable, getmetatable = rawset, setmetatable, getmetatable

-- Not available to scripts, as in Redis.
G.debug, G.print, G.dofile, G.loadfile, G.require, G.module = nil, nil, nil, nil, nil, nil
G.package, G.os, G.io = nil, nil, nil
-- Nor is the userdata maker: its __gc would run outside any script, unbounded.
G.newproxy = nil

local readonly = setmetatable({}, {__mode = 'k'})
local function refuse() error('Attempt to modify a readonly table', 2) end

-- Redis's __redis__err__handler: an error becomes {err=, source=, line=}, the position being
-- the script's line that raised it: its caller's when a C function such as redis.call raised, or
-- when this sandbox's guards did (they stand for checks Redis's Lua makes inside the VM).
local function handler(err)
  local level = 2
  local i = dbg.getinfo(level, 'nSl')
  while i and (i.what == 'C' or i.source == '@sandbox') and level < 5 do
    level = level + 1
    i = dbg.getinfo(level, 'nSl')
  end
  if type(err) ~= 'table' or readonly[err] then err = {err = 'ERR ' .. tostring(err)} end
  -- Raw: the error may be a script's table with metamethods.
  if i then
    rawset(err, 'source', i.source)
    rawset(err, 'line', i.currentline)
  end
  return err
end


-- What getmetatable answers for a protected table: a read-only table whose __index is the
-- protected table `p` (never the real one behind it).
local function view_of(p)
  local view = setmetatable({}, {__index = {__index = p}, __newindex = refuse,
                                 __metatable = false})
  readonly[view] = true
  return view
end

local proxies = {}
local function protect(t)
  local p = proxies[t]
  if p then return p end
  p = {}
  proxies[t] = p
  for k, v in pairs(t) do
    if type(v) == 'table' then rawset(t, k, protect(v)) end
  end
  setmetatable(p, {__index = t, __newindex = refuse, __metatable = view_of(p)})
  readonly[p] = true
  return p
end

local wrappers = {
  setmetatable = function(t, mt)
    if readonly[t] then error('Attempt to modify a readonly table', 2) end
    return setmetatable(t, mt)
  end,
  rawset = function(t, k, v)
    if readonly[t] then error('Attempt to modify a readonly table', 2) end
    return rawset(t, k, v)
  end,
}
for name, f in pairs(wrappers) do G[name] = f end

local function missing(_, name)
  error("Script attempted to access nonexistent global variable '" .. tostring(name) .. "'", 0)
end
local globals = protect(G)
setmetatable(G, {__index = missing})

-- Libraries and functions share one environment whose reads go to the globals view while a
-- function runs and, while a library loads, to the loading redis table alone (as in Redis,
-- library code sees nothing else while it loads).
local load_redis_view = protect(load_redis)
setmetatable(load_redis, {__index = missing})
local load_globals = setmetatable({redis = load_redis_view},
                                  {__index = missing, __newindex = refuse, __metatable = false})
readonly[load_globals] = true
local function_meta = {__index = globals, __newindex = refuse}
local function_env = setmetatable({}, function_meta)
readonly[function_env] = true
function_meta.__metatable = view_of(function_env)

-- Strings index the protected string library; their metatable is read-only too.
local string_meta = getmetatable('')
string_meta.__index = G.string
string_meta.__metatable = view_of(G.string)
return handler, globals, G, function_env, function_meta, load_globals
)lua";

}  // namespace ebb::server::scripting
