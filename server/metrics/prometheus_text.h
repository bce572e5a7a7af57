// PrometheusText: builds a scrape in Prometheus's text exposition format, version 0.0.4 — per
// metric family a `# HELP` and a `# TYPE` line, then its samples, one per line:
//
//   PrometheusText out;
//   out.Family("redis_commands_total", MetricType::kCounter, "Calls per command.");
//   out.Sample("redis_commands_total", {{"cmd", "get"}}, uint64_t{12});
//   std::string body = out.Take();   // served as kPrometheusContentType
//
// A family's HELP and TYPE lines are written with its first sample, so a family that has none
// (no replica connected, no peer configured) leaves no trace. Label values and HELP texts are
// escaped as the format says (label values: backslash, double quote and line feed; HELP:
// backslash and line feed). Names are the caller's constants and are not checked: a metric or
// label name must match [a-zA-Z_:][a-zA-Z0-9_:]* and a family's samples must follow it before
// the next family starts, each family once per scrape. A histogram is written whole by
// Histogram.
// Thread-safety: a value type.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ebb::server {

// The Content-Type of a scrape in this format.
inline constexpr std::string_view kPrometheusContentType =
    "text/plain; version=0.0.4; charset=utf-8";

enum class MetricType { kCounter, kGauge, kSummary, kHistogram };

// A sample's value as the format writes it: integers exactly, other numbers with the
// precision needed to read back the same double, NaN and infinities as "NaN", "+Inf", "-Inf".
class MetricValue {
 public:
  MetricValue(uint64_t v);  // NOLINT(google-explicit-constructor)
  MetricValue(int64_t v);   // NOLINT(google-explicit-constructor)
  MetricValue(int v) : MetricValue(static_cast<int64_t>(v)) {}  // NOLINT
  MetricValue(double v);  // NOLINT(google-explicit-constructor)
  const std::string& text() const { return text_; }

 private:
  std::string text_;
};

struct MetricLabel {
  std::string_view name;
  std::string value;
};

class PrometheusText {
 public:
  // Starts the family `name`; its HELP and TYPE lines are written with its first sample.
  void Family(std::string_view name, MetricType type, std::string_view help);
  // One sample. `name` is the family's, or for a summary the family's with "_sum" or "_count".
  void Sample(std::string_view name, const std::vector<MetricLabel>& labels,
              const MetricValue& value);
  void Sample(std::string_view name, const MetricValue& value) { Sample(name, {}, value); }
  // A family of one sample without labels.
  void Single(std::string_view name, MetricType type, std::string_view help,
              const MetricValue& value) {
    Family(name, type, help);
    Sample(name, value);
  }

  // A histogram family of one series without labels: `name`_bucket{le="<bound>"} per bound
  // (cumulative: the observations <= that bound), `name`_bucket{le="+Inf"} (= count), then
  // `name`_sum and `name`_count. `bounds` ascending; `counts` per bucket, not cumulative, one
  // more than `bounds` (the last: above every bound). REQUIRES: counts.size() ==
  // bounds.size() + 1.
  void Histogram(std::string_view name, std::string_view help, const std::vector<double>& bounds,
                 const std::vector<uint64_t>& counts, double sum);

  const std::string& text() const { return out_; }
  std::string Take() { return std::move(out_); }

 private:
  std::string out_;
  std::string pending_header_;  // the current family's HELP and TYPE until its first sample
};

// `value` as a label value inside double quotes: \ -> \\, " -> \", line feed -> \n.
std::string EscapeLabelValue(std::string_view value);
// `text` as a HELP line's text: \ -> \\, line feed -> \n.
std::string EscapeHelp(std::string_view text);

}  // namespace ebb::server
