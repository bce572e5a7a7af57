#include "server/services/latency_monitor.h"

#include <algorithm>

#include "common/strings.h"
#include "storage/engine_latency.h"

namespace ebb::server {

void LatencyMonitor::Add(std::string_view event, uint64_t latency_ms, int64_t now_s) {
  auto it = events_.find(event);
  if (it == events_.end()) it = events_.emplace(std::string(event), Series{}).first;
  Series& series = it->second;
  const auto ms = static_cast<uint32_t>(std::min<uint64_t>(latency_ms, UINT32_MAX));
  series.max_ms = std::max(series.max_ms, ms);
  if (!series.samples.empty() && series.samples.back().time_s == now_s) {
    series.samples.back().latency_ms = std::max(series.samples.back().latency_ms, ms);
    return;
  }
  series.samples.push_back({now_s, ms});
  if (series.samples.size() > kHistoryLen) series.samples.pop_front();
}

size_t LatencyMonitor::Reset(std::string_view event) {
  return std::erase_if(events_,
                       [event](const auto& entry) { return EqualsIgnoreCase(entry.first, event); });
}

size_t LatencyMonitor::ResetAll() {
  const size_t n = events_.size();
  events_.clear();
  return n;
}

const LatencyMonitor::Series* LatencyMonitor::Find(std::string_view event) const {
  auto it = events_.find(event);
  return it == events_.end() ? nullptr : &it->second;
}

void LatencyMonitor::Collect(uint64_t longest_disk_wait_us, int64_t now_s, int64_t threshold_ms) {
  AddIfNeeded("disk-read", longest_disk_wait_us / 1000, now_s, threshold_ms);
  if (engine_ == nullptr) return;
  for (size_t i = 0; i < storage::EngineLatency::kEvents; ++i) {
    const auto event = static_cast<storage::EngineEvent>(i);
    const uint64_t us = engine_->Take(event);
    if (us > 0) AddIfNeeded(storage::EngineLatency::Name(event), us / 1000, now_s, threshold_ms);
  }
}

}  // namespace ebb::server
