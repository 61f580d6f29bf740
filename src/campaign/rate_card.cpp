#include "campaign/rate_card.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "util/text.hpp"

namespace campaign {

namespace {

// ISO 3166-1 alpha-2 (as tzdata's iso3166.tab lists them), and XK; sorted.
constexpr std::array<std::string_view, 250> k_countries = {
    "AD", "AE", "AF", "AG", "AI", "AL", "AM", "AO", "AQ", "AR", "AS", "AT", "AU", "AW", "AX", "AZ", "BA", "BB",
    "BD", "BE", "BF", "BG", "BH", "BI", "BJ", "BL", "BM", "BN", "BO", "BQ", "BR", "BS", "BT", "BV", "BW", "BY",
    "BZ", "CA", "CC", "CD", "CF", "CG", "CH", "CI", "CK", "CL", "CM", "CN", "CO", "CR", "CU", "CV", "CW", "CX",
    "CY", "CZ", "DE", "DJ", "DK", "DM", "DO", "DZ", "EC", "EE", "EG", "EH", "ER", "ES", "ET", "FI", "FJ", "FK",
    "FM", "FO", "FR", "GA", "GB", "GD", "GE", "GF", "GG", "GH", "GI", "GL", "GM", "GN", "GP", "GQ", "GR", "GS",
    "GT", "GU", "GW", "GY", "HK", "HM", "HN", "HR", "HT", "HU", "ID", "IE", "IL", "IM", "IN", "IO", "IQ", "IR",
    "IS", "IT", "JE", "JM", "JO", "JP", "KE", "KG", "KH", "KI", "KM", "KN", "KP", "KR", "KW", "KY", "KZ", "LA",
    "LB", "LC", "LI", "LK", "LR", "LS", "LT", "LU", "LV", "LY", "MA", "MC", "MD", "ME", "MF", "MG", "MH", "MK",
    "ML", "MM", "MN", "MO", "MP", "MQ", "MR", "MS", "MT", "MU", "MV", "MW", "MX", "MY", "MZ", "NA", "NC", "NE",
    "NF", "NG", "NI", "NL", "NO", "NP", "NR", "NU", "NZ", "OM", "PA", "PE", "PF", "PG", "PH", "PK", "PL", "PM",
    "PN", "PR", "PS", "PT", "PW", "PY", "QA", "RE", "RO", "RS", "RU", "RW", "SA", "SB", "SC", "SD", "SE", "SG",
    "SH", "SI", "SJ", "SK", "SL", "SM", "SN", "SO", "SR", "SS", "ST", "SV", "SX", "SY", "SZ", "TC", "TD", "TF",
    "TG", "TH", "TJ", "TK", "TL", "TM", "TN", "TO", "TR", "TT", "TV", "TW", "TZ", "UA", "UG", "UM", "US", "UY",
    "UZ", "VA", "VC", "VE", "VG", "VI", "VN", "VU", "WF", "WS", "XK", "YE", "YT", "ZA", "ZM", "ZW",
};

// A card is a page of figures; anything this big is a mistake.
constexpr std::size_t k_max_card_size = 1 << 20;
// Problems reported of one card: a wrong file is said to be wrong soon enough.
constexpr std::size_t k_max_problems = 20;

enum class Column { country, marketing, utility, authentication, authentication_international };
constexpr std::array<std::string_view, 5> k_column_names = {"country", "marketing", "utility", "authentication",
                                                            "authentication_international"};

// A CSV field without its spaces and enclosing double quotes.
std::string_view field_text(std::string_view field) {
    field = util::trim(field);
    if (field.size() >= 2 && field.front() == '"' && field.back() == '"') {
        field = util::trim(field.substr(1, field.size() - 2));
    }
    return field;
}

std::vector<std::string_view> split_fields(std::string_view line) {
    std::vector<std::string_view> out;
    for (std::size_t at = 0;;) {
        const std::size_t comma = line.find(',', at);
        out.push_back(field_text(line.substr(at, comma == std::string_view::npos ? comma : comma - at)));
        if (comma == std::string_view::npos) {
            return out;
        }
        at = comma + 1;
    }
}

// A non-negative decimal: digits with at most one point ("0.0107", "1", ".5").
std::optional<double> price_value(std::string_view text) {
    const bool digits_only = !text.empty() && text != "." && std::all_of(text.begin(), text.end(), [](char c) {
        return c == '.' || (c >= '0' && c <= '9');
    }) && std::count(text.begin(), text.end(), '.') <= 1;
    if (!digits_only) {
        return std::nullopt;
    }
    double value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size()) {
        return std::nullopt;
    }
    return value;
}

std::optional<std::chrono::sys_days> parse_day(std::string_view text) {
    int y = 0;
    unsigned m = 0;
    unsigned d = 0;
    if (text.size() != 10 || text[4] != '-' || text[7] != '-') {
        return std::nullopt;
    }
    const auto number = [&](std::size_t at, std::size_t n, auto& out) {
        const auto [end, ec] = std::from_chars(text.data() + at, text.data() + at + n, out);
        return ec == std::errc() && end == text.data() + at + n;
    };
    if (!number(0, 4, y) || !number(5, 2, m) || !number(8, 2, d)) {
        return std::nullopt;
    }
    const std::chrono::year_month_day day{std::chrono::year(y), std::chrono::month(m), std::chrono::day(d)};
    if (!day.ok()) {
        return std::nullopt;
    }
    return std::chrono::sys_days(day);
}

// What a card's lines say.
struct CardFacts {
    std::optional<std::chrono::sys_days> effective;
    std::map<std::string, CountryPrices, std::less<>> countries;
    CountryPrices rest;  // the `*` row
};

// Reads one card's text, line by line, collecting every problem.
class CardParser {
public:
    explicit CardParser(std::string path) : m_card_path(std::move(path)) {}

    void line(std::string_view text, long long number) {
        if (!text.empty() && text.back() == '\r') {
            text.remove_suffix(1);
        }
        if (number == 1 && text.starts_with("\xEF\xBB\xBF")) {
            text.remove_prefix(3);  // a byte-order mark, as spreadsheets write it
        }
        const std::string_view trimmed = util::trim(text);
        if (trimmed.empty()) {
            return;
        }
        if (trimmed.front() == '#') {
            comment(trimmed.substr(1), number);
        } else if (!m_header_line) {
            header(trimmed, number);
        } else if (m_header_ok) {
            row(trimmed, number);
        }
    }

    util::Result<std::vector<std::string>> finish() {
        if (!m_header_line) {
            problem(1, "no header: expected country,marketing,utility,authentication");
        } else if (m_header_ok && !m_rest_line) {
            problem(*m_header_line, "no `*` row: the price of every country not listed is needed");
        }
        return std::move(m_problems);
    }

    // What the lines said (once finish() found no problem).
    CardFacts take() { return std::move(m_facts); }

private:
    void problem(long long line, std::string message) {
        if (m_problems.size() < k_max_problems) {
            m_problems.push_back(fmt::format("{}:{}: {}", m_card_path, line, util::printable(message)));
        }
    }

    void comment(std::string_view text, long long number) {
        text = util::trim(text);
        if (!util::starts_with_nocase(text, "effective:")) {
            return;
        }
        const std::string_view value = util::trim(text.substr(std::string_view("effective:").size()));
        if (m_effective_line) {
            problem(number, fmt::format("a second `# effective:` date (the first is on line {})", *m_effective_line));
            return;
        }
        m_effective_line = number;
        m_facts.effective = parse_day(value);
        if (!m_facts.effective) {
            problem(number, fmt::format("`# effective: {}`: expected a date as YYYY-MM-DD", value));
        }
    }

    void header(std::string_view text, long long number) {
        m_header_line = number;
        m_header_ok = true;
        for (const std::string_view name : split_fields(text)) {
            const std::string lower = util::ascii_lower(name);
            const auto* known = std::find(k_column_names.begin(), k_column_names.end(), lower);
            if (known == k_column_names.end()) {
                problem(number, fmt::format("unknown column \"{}\" (expected country, marketing, utility, "
                                            "authentication and, optionally, authentication_international)",
                                            name));
                m_header_ok = false;
                continue;
            }
            const auto column = static_cast<Column>(known - k_column_names.begin());
            if (std::find(m_columns.begin(), m_columns.end(), column) != m_columns.end()) {
                problem(number, fmt::format("column \"{}\" appears twice", lower));
                m_header_ok = false;
            }
            m_columns.push_back(column);
        }
        for (std::size_t i = 0; i < 4; ++i) {
            if (std::find(m_columns.begin(), m_columns.end(), static_cast<Column>(i)) == m_columns.end()) {
                problem(number, fmt::format("no column \"{}\"", k_column_names[i]));
                m_header_ok = false;
            }
        }
    }

    void row(std::string_view text, long long number) {
        const auto fields = split_fields(text);
        if (fields.size() != m_columns.size()) {
            problem(number, fmt::format("{} fields, but the header has {} columns", fields.size(), m_columns.size()));
            return;
        }
        std::string country;
        CountryPrices prices;
        bool good = true;
        for (std::size_t i = 0; i < fields.size(); ++i) {
            if (m_columns[i] == Column::country) {
                country = util::ascii_upper(fields[i]);
                continue;
            }
            good = price(m_columns[i], fields[i], number, prices) && good;
        }
        if (!good || !known_row(country, number)) {
            return;
        }
        if (country == "*") {
            m_rest_line = number;
            m_facts.rest = prices;
        } else {
            m_facts.countries.emplace(country, prices);
            m_lines.emplace(country, number);
        }
    }

    // Reads `text`, the field of `column`, into `prices`; false (reported) when it is no price.
    bool price(Column column, std::string_view text, long long number, CountryPrices& prices) {
        const std::string_view name = k_column_names[static_cast<std::size_t>(column)];
        if (text.empty() && column == Column::authentication_international) {
            return true;  // only some countries have one
        }
        const auto value = price_value(text);
        if (!value) {
            problem(number,
                    fmt::format("{}: \"{}\" is not a price (expected a non-negative decimal like 0.0107)", name, text));
            return false;
        }
        switch (column) {
        case Column::marketing: prices.marketing = *value; break;
        case Column::utility: prices.utility = *value; break;
        case Column::authentication: prices.authentication = *value; break;
        case Column::authentication_international: prices.authentication_international = *value; break;
        case Column::country: break;
        }
        return true;
    }

    // Whether `country` may have a row at `number` (reported when not).
    bool known_row(const std::string& country, long long number) {
        if (country != "*" && !known_country(country)) {
            problem(number, fmt::format("country \"{}\" is not an ISO 3166-1 alpha-2 code (or `*` for every "
                                        "country not listed)",
                                        country));
            return false;
        }
        const std::optional<long long> first =
            country == "*" ? m_rest_line
                           : (m_lines.contains(country) ? std::optional(m_lines.at(country)) : std::nullopt);
        if (first) {
            problem(number, fmt::format("country \"{}\" is listed twice (first on line {})", country, *first));
            return false;
        }
        return true;
    }

    std::string m_card_path;
    CardFacts m_facts;
    std::vector<std::string> m_problems;
    std::optional<long long> m_header_line;
    bool m_header_ok = false;
    std::vector<Column> m_columns;
    std::optional<long long> m_effective_line;
    std::optional<long long> m_rest_line;
    std::map<std::string, long long, std::less<>> m_lines;
};

// The running binary's own path; empty when it cannot be read.
std::filesystem::path own_binary() {
    std::error_code ec;
    auto path = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::filesystem::path() : path;
}

}  // namespace

double CountryPrices::of(PriceCategory category) const {
    switch (category) {
    case PriceCategory::marketing: return marketing;
    case PriceCategory::utility: return utility;
    case PriceCategory::authentication:
        return authentication_international ? std::max(authentication, *authentication_international) : authentication;
    }
    return marketing;
}

util::Result<RateCard> RateCard::parse(std::string_view text, const std::string& path) {
    CardParser parser(path);
    long long number = 0;
    for (std::size_t at = 0; at <= text.size();) {
        const std::size_t end = std::min(text.find('\n', at), text.size());
        parser.line(text.substr(at, end - at), ++number);
        at = end + 1;
    }
    TRY_ASSIGN(auto problems, parser.finish());
    if (!problems.empty()) {
        return util::fail(fmt::format("{}", fmt::join(problems, "\n")));
    }
    CardFacts facts = parser.take();
    RateCard card;
    card.m_path = path;
    card.m_effective = facts.effective;
    card.m_countries = std::move(facts.countries);
    card.m_rest = facts.rest;
    return card;
}

util::Result<RateCard> RateCard::read(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) {
        return util::fail(fmt::format("{}: cannot read: not a file", path));
    }
    if (std::filesystem::file_size(path, ec) > k_max_card_size) {
        return util::fail(fmt::format("{}: larger than {} bytes: not a rate card", path, k_max_card_size));
    }
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    if (!in) {
        return util::fail(fmt::format("{}: cannot read", path));
    }
    return parse(text.str(), path);
}

const CountryPrices& RateCard::prices(std::string_view country) const {
    const auto found = m_countries.find(country);
    return found == m_countries.end() ? m_rest : found->second;
}

bool RateCard::lists(std::string_view country) const {
    return m_countries.find(country) != m_countries.end();
}

bool known_country(std::string_view code) {
    return std::binary_search(k_countries.begin(), k_countries.end(), code);
}

std::string day_text(std::chrono::sys_days day) {
    const std::chrono::year_month_day ymd(day);
    return fmt::format("{:04}-{:02}-{:02}", static_cast<int>(ymd.year()), static_cast<unsigned>(ymd.month()),
                       static_cast<unsigned>(ymd.day()));
}

std::optional<std::string> default_rate_card_path(std::vector<std::string>& tried) {
    std::vector<std::filesystem::path> candidates;
    if (const auto binary = own_binary(); !binary.empty()) {
        candidates.push_back((binary.parent_path() / WACAMP_DATA_FROM_BIN / "rate-card.csv").lexically_normal());
    }
    candidates.emplace_back(WACAMP_SOURCE_RATE_CARD);
    for (const auto& path : candidates) {
        tried.push_back(path.string());
        std::error_code ec;
        if (std::filesystem::is_regular_file(path, ec)) {
            return path.string();
        }
    }
    return std::nullopt;
}

std::optional<std::string> stale_card_warning(const RateCard& card, util::TimePoint now, std::string_view key) {
    if (!card.effective()) {
        return fmt::format(
            "the rate card {} has no `# effective: YYYY-MM-DD` date: its prices may be out of date; "
            "set {} to a card of Meta's current prices",
            card.path(), key);
    }
    const auto today = std::chrono::floor<std::chrono::days>(now);
    if (today - *card.effective() <= k_stale_card_age) {
        return std::nullopt;
    }
    return fmt::format(
        "the rate card {} is dated {}, more than {} days ago: Meta changes its prices every quarter; "
        "set {} to a card of its current prices",
        card.path(), day_text(*card.effective()), k_stale_card_age.count(), key);
}

}  // namespace campaign
