// PrometheusText: the text exposition format's lines — HELP and TYPE before a family's first
// sample and never for a family without samples, escaped label values and HELP texts, and
// values written exactly (integers) or as the format spells special doubles.
#include "server/metrics/prometheus_text.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

namespace ebb::server {
namespace {

TEST(PrometheusText, FamilyHeaderThenSamples) {
  PrometheusText out;
  out.Family("redis_commands_total", MetricType::kCounter, "Calls per command.");
  out.Sample("redis_commands_total", {{"cmd", "get"}}, uint64_t{12});
  out.Sample("redis_commands_total", {{"cmd", "config|get"}, {"x", "y"}}, uint64_t{3});
  out.Single("redis_up", MetricType::kGauge, "1 while serving.", 1);
  EXPECT_EQ(out.text(),
            "# HELP redis_commands_total Calls per command.\n"
            "# TYPE redis_commands_total counter\n"
            "redis_commands_total{cmd=\"get\"} 12\n"
            "redis_commands_total{cmd=\"config|get\",x=\"y\"} 3\n"
            "# HELP redis_up 1 while serving.\n"
            "# TYPE redis_up gauge\n"
            "redis_up 1\n");
}

TEST(PrometheusText, FamilyWithoutSamplesLeavesNoLines) {
  PrometheusText out;
  out.Family("redis_connected_slave_lag_seconds", MetricType::kGauge, "Per replica.");
  out.Family("redis_db_keys", MetricType::kGauge, "Keys.");
  out.Sample("redis_db_keys", {{"db", "db0"}}, 0);
  EXPECT_EQ(
      out.Take(),
      "# HELP redis_db_keys Keys.\n# TYPE redis_db_keys gauge\nredis_db_keys{db=\"db0\"} 0\n");
}

TEST(PrometheusText, LabelValuesAreEscaped) {
  EXPECT_EQ(EscapeLabelValue("plain"), "plain");
  EXPECT_EQ(EscapeLabelValue("a\\b"), "a\\\\b");
  EXPECT_EQ(EscapeLabelValue("say \"hi\""), "say \\\"hi\\\"");
  EXPECT_EQ(EscapeLabelValue("two\nlines"), "two\\nlines");
  EXPECT_EQ(EscapeLabelValue("\\\"\n"), "\\\\\\\"\\n");
  PrometheusText out;
  out.Family("m", MetricType::kGauge, "h");
  out.Sample("m", {{"v", "a\"b\\c\nd"}}, 1);
  EXPECT_EQ(out.text(), "# HELP m h\n# TYPE m gauge\nm{v=\"a\\\"b\\\\c\\nd\"} 1\n");
}

TEST(PrometheusText, HelpIsEscapedButKeepsQuotes) {
  EXPECT_EQ(EscapeHelp("a \"quoted\" \\ text\nmore"), "a \"quoted\" \\\\ text\\nmore");
}

TEST(PrometheusText, ValuesAreExactOrSpelledAsTheFormatSays) {
  EXPECT_EQ(MetricValue(std::numeric_limits<uint64_t>::max()).text(), "18446744073709551615");
  EXPECT_EQ(MetricValue(int64_t{-5}).text(), "-5");
  EXPECT_EQ(MetricValue(0.25).text(), "0.25");
  EXPECT_EQ(MetricValue(1.0).text(), "1");
  EXPECT_EQ(MetricValue(std::numeric_limits<double>::quiet_NaN()).text(), "NaN");
  EXPECT_EQ(MetricValue(std::numeric_limits<double>::infinity()).text(), "+Inf");
  EXPECT_EQ(MetricValue(-std::numeric_limits<double>::infinity()).text(), "-Inf");
}

TEST(PrometheusText, SummaryType) {
  PrometheusText out;
  out.Family("s", MetricType::kSummary, "h");
  out.Sample("s", {{"quantile", "0.5"}}, 1.5);
  out.Sample("s_sum", 3.0);
  out.Sample("s_count", 2);
  EXPECT_EQ(out.text(),
            "# HELP s h\n# TYPE s summary\ns{quantile=\"0.5\"} 1.5\ns_sum 3\ns_count 2\n");
}

TEST(PrometheusText, HistogramWritesCumulativeBucketsThenSumAndCount) {
  PrometheusText out;
  out.Histogram("ebb_disk_read_duration_seconds", "Disk reads.", {0.0001, 0.0025, 1},
                {uint64_t{2}, uint64_t{0}, uint64_t{5}, uint64_t{1}}, 3.5);
  EXPECT_EQ(out.text(),
            "# HELP ebb_disk_read_duration_seconds Disk reads.\n"
            "# TYPE ebb_disk_read_duration_seconds histogram\n"
            "ebb_disk_read_duration_seconds_bucket{le=\"0.0001\"} 2\n"
            "ebb_disk_read_duration_seconds_bucket{le=\"0.0025\"} 2\n"
            "ebb_disk_read_duration_seconds_bucket{le=\"1\"} 7\n"
            "ebb_disk_read_duration_seconds_bucket{le=\"+Inf\"} 8\n"
            "ebb_disk_read_duration_seconds_sum 3.5\n"
            "ebb_disk_read_duration_seconds_count 8\n");
}

TEST(PrometheusText, EmptyHistogramStillWritesEveryBucket) {
  PrometheusText out;
  out.Histogram("h", "x", {0.5}, {uint64_t{0}, uint64_t{0}}, 0.0);
  EXPECT_EQ(out.text(),
            "# HELP h x\n# TYPE h histogram\nh_bucket{le=\"0.5\"} 0\nh_bucket{le=\"+Inf\"} 0\n"
            "h_sum 0\nh_count 0\n");
}

}  // namespace
}  // namespace ebb::server
