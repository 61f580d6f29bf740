#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "cli/suppress_list.hpp"

namespace {

using account::Suppression;

// 2025-03-01T00:00:00Z
const util::TimePoint k_t0 = util::TimePoint(std::chrono::seconds(1740787200));

Suppression entry(const std::string& reason, const std::string& source = "manual") {
    return Suppression{"919812345678", reason, k_t0, source};
}

}  // namespace

TEST_SUITE("cli::suppress list") {
    TEST_CASE("a row holds the number with +, the reason, the time and the source, in aligned columns") {
        const cli::ListWidths widths = cli::widen(cli::widen({}, entry("manual")), entry("undeliverable"));
        CHECK(widths.number == 13);
        CHECK(widths.reason == 13);
        CHECK(cli::table_heading(widths) == "NUMBER         REASON         SINCE                     SOURCE\n");
        CHECK(cli::table_row(entry("manual"), widths) ==
              "+919812345678  manual         2025-03-01T00:00:00.000Z  manual\n");
    }

    TEST_CASE("a reason's control characters are shown escaped, its line breaks as spaces") {
        const auto e = entry("\x1b[31mred\nline\x9b", "file:a\tb.csv");
        const std::string row = cli::table_row(e, cli::widen({}, e));
        CHECK(row.find('\x1b') == std::string::npos);
        CHECK(row.find("\\x1b[31mred line") != std::string::npos);
        CHECK(row.find("file:a b.csv\n") != std::string::npos);
        CHECK(std::count(row.begin(), row.end(), '\n') == 1);
    }

    TEST_CASE("widths count characters, not bytes") {
        const auto e = entry("žluťoučký kůň");  // 13 characters, 19 bytes
        const cli::ListWidths widths = cli::widen({}, e);
        CHECK(widths.reason == 13);
        const std::string row = cli::table_row(entry("listed"), widths);
        CHECK(row.find("listed         2025") != std::string::npos);
    }

    TEST_CASE("a JSON row holds wa_id, reason, since and source, and stays JSON whatever the reason") {
        const auto line = cli::json_row(entry("\x1b[31m\xff\xe2\x80\xae"));
        REQUIRE(line.ends_with("\n"));
        CHECK(std::count(line.begin(), line.end(), '\n') == 1);
        CHECK(line.find('\x1b') == std::string::npos);
        CHECK(line.find("\xe2\x80\xae") == std::string::npos);  // the bidi override, escaped
        const auto parsed = nlohmann::json::parse(line);
        CHECK(parsed["wa_id"] == "919812345678");
        CHECK(parsed["reason"] == "\x1b[31m\xef\xbf\xbd\xe2\x80\xae");
        CHECK(parsed["since"] == "2025-03-01T00:00:00.000Z");
        CHECK(parsed["source"] == "manual");
        CHECK(line.starts_with("{\"wa_id\":"));
    }
}
