#include "server/services/latency_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <vector>

namespace ebb::server {
namespace {

// Redis's analyzeLatencyForEvent.
struct EventStats {
  uint64_t samples = 0;
  uint64_t avg = 0;
  uint64_t mad = 0;    // mean absolute deviation from avg
  int64_t period = 0;  // seconds since the oldest sample (at least 1)
};

EventStats Analyze(const LatencyMonitor::Series& series, int64_t now_s) {
  EventStats s;
  if (series.samples.empty()) return s;
  uint64_t sum = 0;
  int64_t oldest = series.samples.front().time_s;
  for (const LatencyMonitor::Sample& sample : series.samples) {
    sum += sample.latency_ms;
    oldest = std::min(oldest, sample.time_s);
  }
  s.samples = series.samples.size();
  s.avg = sum / s.samples;
  s.period = std::max<int64_t>(now_s - oldest, 1);
  uint64_t deviation = 0;
  for (const LatencyMonitor::Sample& sample : series.samples) {
    deviation += static_cast<uint64_t>(
        std::llabs(static_cast<int64_t>(s.avg) - static_cast<int64_t>(sample.latency_ms)));
  }
  s.mad = deviation / s.samples;
  return s;
}

struct Advice {
  bool slowlog_enabled = false;
  bool slowlog_tuning = false;
  bool slowlog_inspect = false;
  bool scheduler = false;
  bool local_disk = false;
  bool ssd = false;
  bool disk_contention = false;
  bool relax_fsync = false;
  bool block_cache = false;
  bool large_objects = false;

  bool any() const {
    return slowlog_enabled || slowlog_tuning || slowlog_inspect || scheduler || local_disk || ssd ||
           disk_contention || relax_fsync || block_cache || large_objects;
  }
};

void Consider(std::string_view event, const LatencyReportSettings& settings, Advice* a) {
  const bool disk_work = event == "wal-fsync" || event == "memtable-flush" ||
                         event == "compaction" || event == "purge-compaction" ||
                         event == "file-drop" || event == "disk-read";
  if (event == "command") {
    if (settings.slowlog_slower_than_us < 0) {
      a->slowlog_enabled = true;
    } else if (settings.slowlog_slower_than_us / 1000 > settings.threshold_ms) {
      a->slowlog_tuning = true;
    }
    a->slowlog_inspect = true;
    a->large_objects = true;
  } else if (event == "fast-command") {
    a->scheduler = true;
  } else if (event == "expire-cycle") {
    a->large_objects = true;
  } else if (disk_work) {
    a->local_disk = true;
    a->ssd = true;
    a->disk_contention = true;
    if (event == "wal-fsync" && settings.wal_fsync_always) a->relax_fsync = true;
    if (event == "disk-read") a->block_cache = true;
  }
}

void AppendAdvice(const Advice& a, const LatencyReportSettings& settings, std::string* out) {
  *out += "\nI have a few advices for you:\n\n";
  const int64_t suggested_us = settings.threshold_ms * 1000;
  if (a.slowlog_enabled) {
    *out += fmt::format(
        "- There are latency issues with potentially slow commands you are using. Try to enable "
        "the Slow Log Redis feature using the command 'CONFIG SET slowlog-log-slower-than {}'. "
        "If the Slow log is disabled Redis is not able to log slow commands execution for "
        "you.\n",
        suggested_us);
  }
  if (a.slowlog_tuning) {
    *out += fmt::format(
        "- Your current Slow Log configuration only logs events that are slower than your "
        "configured latency monitor threshold. Please use 'CONFIG SET slowlog-log-slower-than "
        "{}'.\n",
        suggested_us);
  }
  if (a.slowlog_inspect) {
    *out +=
        "- Check your Slow Log to understand what are the commands you are running which are "
        "too slow to execute. Please check https://redis.io/commands/slowlog for more "
        "information.\n";
  }
  if (a.scheduler) {
    *out +=
        "- The system is slow to execute Redis code paths not containing system calls. This "
        "usually means the system does not provide Redis CPU time to run for long periods. You "
        "should try to:\n"
        "  1) Lower the system load.\n"
        "  2) Use a computer / VM just for Redis if you are running other software in the same "
        "system.\n"
        "  3) Check if you have a \"noisy neighbour\" problem.\n"
        "  4) Check with 'redis-cli --intrinsic-latency 100' what is the intrinsic latency in "
        "your system.\n";
  }
  if (a.local_disk) {
    *out +=
        "- It is strongly advised to use local disks for the data directory. Remote disks "
        "provided by platform-as-a-service providers are known to be slow.\n";
  }
  if (a.ssd) {
    *out +=
        "- SSD disks are able to reduce fsync latency, and the time flushes and compactions "
        "take. With extremely high write load SSD disks can be a good option.\n";
  }
  if (a.disk_contention) {
    *out +=
        "- Try to lower the disk contention. This is often caused by other disk intensive "
        "processes running in the same computer (including other database instances).\n";
  }
  if (a.relax_fsync) {
    *out +=
        "- Your fsync policy is set to 'always'. It is very hard to get good performances with "
        "such a setup, if possible try to relax the fsync policy to 'everysec' ('CONFIG SET "
        "wal-fsync everysec').\n";
  }
  if (a.block_cache) {
    *out +=
        "- Commands waited for table blocks read from the disk. A larger 'block-cache-size' "
        "keeps more of them in memory.\n";
  }
  if (a.large_objects) {
    *out +=
        "- Deleting or expiring large objects is a blocking operation. If you have very large "
        "objects that are often deleted or expired, try to fragment those objects into "
        "multiple smaller objects.\n";
  }
}

// Redis's sparkline.c, SPARKLINE_FILL: rows of "_o#" steps, '|' below the top of a column.
struct Column {
  double value;
  std::string label;
};

void RenderRange(const std::vector<Column>& columns, size_t offset, size_t len, double min,
                 double max, std::string* out) {
  constexpr std::string_view kFill = "_o#";
  constexpr int kRows = 4;
  constexpr int kCharsetLen = 3;
  constexpr int kSteps = kCharsetLen * kRows;
  const double relmax = max - min == 0 ? 1 : max - min;
  for (int row = 0;; ++row) {
    std::string chars(len, ' ');
    bool loop = false;
    for (size_t j = 0; j < len; ++j) {
      const Column& c = columns[offset + j];
      int step = static_cast<int>(static_cast<double>(static_cast<int>((c.value - min) * kSteps)) /
                                  relmax);
      step = std::clamp(step, 0, kSteps - 1);
      if (row < kRows) {
        const int charidx = step - (kRows - row - 1) * kCharsetLen;
        loop = true;
        if (charidx >= 0 && charidx < kCharsetLen) {
          chars[j] = kFill[charidx];
        } else if (charidx >= kCharsetLen) {
          chars[j] = '|';
        }
      } else {
        if (row - kRows < 1) {  // one blank line above the labels
          loop = true;
          break;
        }
        const size_t label_char = static_cast<size_t>(row - kRows - 1);
        if (c.label.size() > label_char) {
          loop = true;
          chars[j] = c.label[label_char];
        }
      }
    }
    if (!loop) return;
    *out += chars;
    *out += '\n';
  }
}

std::string Elapsed(int64_t seconds) {
  if (seconds < 60) return fmt::format("{}s", seconds);
  if (seconds < 3600) return fmt::format("{}m", seconds / 60);
  if (seconds < 3600 * 24) return fmt::format("{}h", seconds / 3600);
  return fmt::format("{}d", seconds / (3600 * 24));
}

}  // namespace

std::string LatencyDoctorReport(const LatencyMonitor& monitor,
                                const LatencyReportSettings& settings, int64_t now_s) {
  if (monitor.events().empty() && settings.threshold_ms == 0) {
    return "I'm sorry, Dave, I can't do that. Latency monitoring is disabled in this Redis "
           "instance. You may use \"CONFIG SET latency-monitor-threshold <milliseconds>.\" in "
           "order to enable it. If we weren't in a deep space mission I'd suggest to take a look "
           "at https://redis.io/topics/latency-monitor.\n";
  }
  if (monitor.events().empty()) {
    return "Dave, no latency spike was observed during the lifetime of this Redis instance, not "
           "in the slightest bit. I honestly think you ought to sit down calmly, take a stress "
           "pill, and think things over.\n";
  }
  std::string out =
      "Dave, I have observed latency spikes in this Redis instance. You don't mind talking "
      "about it, do you Dave?\n\n";
  Advice advice;
  int number = 0;
  for (const auto& [event, series] : monitor.events()) {
    const EventStats s = Analyze(series, now_s);
    out += fmt::format(
        "{}. {}: {} latency spikes (average {}ms, mean deviation {}ms, period {:.2f} sec). Worst "
        "all time event {}ms.\n",
        ++number, event, s.samples, s.avg, s.mad,
        static_cast<double>(s.period) / static_cast<double>(std::max<uint64_t>(s.samples, 1)),
        series.max_ms);
    Consider(event, settings, &advice);
  }
  if (!advice.any()) {
    out +=
        "\nWhile there are latency events logged, I'm not able to suggest any easy fix. Please "
        "use the Redis community to get some help, providing this report in your help "
        "request.\n";
    return out;
  }
  AppendAdvice(advice, settings, &out);
  return out;
}

std::string LatencyGraph(std::string_view event, const LatencyMonitor::Series& series,
                         int64_t now_s) {
  constexpr size_t kGraphCols = 80;
  std::vector<Column> columns;
  uint32_t low = 0, high = 0;
  for (const LatencyMonitor::Sample& sample : series.samples) {
    if (columns.empty()) {
      low = high = sample.latency_ms;
    } else {
      low = std::min(low, sample.latency_ms);
      high = std::max(high, sample.latency_ms);
    }
    columns.push_back({static_cast<double>(sample.latency_ms), Elapsed(now_s - sample.time_s)});
  }
  std::string out = fmt::format("{} - high {} ms, low {} ms (all time high {} ms)\n", event, high,
                                low, series.max_ms);
  out += std::string(kGraphCols, '-') + "\n";
  for (size_t j = 0; j < columns.size(); j += kGraphCols) {
    if (j != 0) out += '\n';
    RenderRange(columns, j, std::min(kGraphCols, columns.size() - j), low, high, &out);
  }
  return out;
}

}  // namespace ebb::server
