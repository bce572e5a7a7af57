#include "server/metrics/prometheus_text.h"

#include <fmt/format.h>

#include <cmath>

namespace ebb::server {
namespace {

std::string_view TypeName(MetricType type) {
  switch (type) {
    case MetricType::kCounter:
      return "counter";
    case MetricType::kGauge:
      return "gauge";
    case MetricType::kSummary:
      return "summary";
    case MetricType::kHistogram:
      return "histogram";
  }
  return "untyped";
}

}  // namespace

MetricValue::MetricValue(uint64_t v) : text_(std::to_string(v)) {}

MetricValue::MetricValue(int64_t v) : text_(std::to_string(v)) {}

MetricValue::MetricValue(double v) {
  if (std::isnan(v)) {
    text_ = "NaN";
  } else if (std::isinf(v)) {
    text_ = v > 0 ? "+Inf" : "-Inf";
  } else {
    text_ = fmt::format("{}", v);  // the shortest text that reads back as v
  }
}

void PrometheusText::Family(std::string_view name, MetricType type, std::string_view help) {
  pending_header_ =
      fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, EscapeHelp(help), name, TypeName(type));
}

void PrometheusText::Sample(std::string_view name, const std::vector<MetricLabel>& labels,
                            const MetricValue& value) {
  if (!pending_header_.empty()) {
    out_ += pending_header_;
    pending_header_.clear();
  }
  out_ += name;
  if (!labels.empty()) {
    out_ += '{';
    for (size_t i = 0; i < labels.size(); ++i) {
      if (i > 0) out_ += ',';
      out_ += labels[i].name;
      out_ += "=\"";
      out_ += EscapeLabelValue(labels[i].value);
      out_ += '"';
    }
    out_ += '}';
  }
  out_ += ' ';
  out_ += value.text();
  out_ += '\n';
}

void PrometheusText::Histogram(std::string_view name, std::string_view help,
                               const std::vector<double>& bounds,
                               const std::vector<uint64_t>& counts, double sum) {
  Family(name, MetricType::kHistogram, help);
  const std::string bucket = fmt::format("{}_bucket", name);
  uint64_t cumulative = 0;
  for (size_t i = 0; i < bounds.size(); ++i) {
    cumulative += i < counts.size() ? counts[i] : 0;
    Sample(bucket, {{"le", MetricValue(bounds[i]).text()}}, cumulative);
  }
  for (size_t i = bounds.size(); i < counts.size(); ++i) cumulative += counts[i];
  Sample(bucket, {{"le", "+Inf"}}, cumulative);
  Sample(fmt::format("{}_sum", name), sum);
  Sample(fmt::format("{}_count", name), cumulative);
}

std::string EscapeLabelValue(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string EscapeHelp(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace ebb::server
