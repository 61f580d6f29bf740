#include "results/record_fields.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

#include "util/time.hpp"

namespace results::detail {

namespace {

using util::JsonScanner;

std::optional<Key> find_key(std::string_view name) {
    for (std::size_t i = 0; i < k_key_count; ++i) {
        if (k_key_names[i] == name) {
            return static_cast<Key>(i);
        }
    }
    return std::nullopt;
}

enum class Kind : std::uint8_t { string, integer, strings, counts, message, preview, plan, price, rate_card };

Kind kind_of(Key key) {
    switch (key) {
    case Key::row:
    case Key::attempt:
    case Key::attempts:
    case Key::http_status:
    case Key::error_code:
    case Key::latency_ms:
    case Key::batch: return Kind::integer;
    case Key::ids:
    case Key::subscriber_ids:
    case Key::defaults: return Kind::strings;
    case Key::message: return Kind::message;
    case Key::preview: return Kind::preview;
    case Key::counts: return Kind::counts;
    case Key::plan: return Kind::plan;
    case Key::price: return Kind::price;
    case Key::rate_card: return Kind::rate_card;
    default: return Kind::string;
    }
}

// Reads a JSON number into `out`; fails on anything else.
bool read_double(JsonScanner& in, double& out) {
    std::string_view raw;
    if (!in.read_raw(raw)) {
        return false;
    }
    const auto [end, ec] = std::from_chars(raw.data(), raw.data() + raw.size(), out);
    return (ec == std::errc() && end == raw.data() + raw.size()) || in.fail("expected a number");
}

// Reads a string into `out`, or null as "".
bool read_string_or_null(JsonScanner& in, std::string& out) {
    return in.read_null() || (in.peek() == '"' && in.read_string(out));
}

// Reads `plan.cost`; members it does not know are skipped.
bool read_cost(JsonScanner& in, std::optional<CostSummary>& out) {
    CostSummary& cost = out.emplace();
    return in.read_object([&](std::string_view key) {
        if (key == "currency" || key == "category" || key == "rate_card") {
            return read_string_or_null(
                in, key == "currency" ? cost.currency : (key == "category" ? cost.category : cost.rate_card));
        }
        if (key == "effective") {
            std::string day;
            if (!read_string_or_null(in, day)) {
                return false;
            }
            cost.effective = day.empty() ? std::nullopt : std::optional(day);
            return true;
        }
        if (key == "total") {
            return read_double(in, cost.total);
        }
        if (key == "messages") {
            return in.read_int(cost.messages);
        }
        if (key == "by_country") {
            return in.peek() == '{' && in.read_object([&](std::string_view country) {
                auto& c = cost.by_country.emplace_back();
                c.country = std::string(country);
                return in.read_object([&](std::string_view member) {
                    if (member == "messages") {
                        return in.read_int(c.messages);
                    }
                    if (member == "price" || member == "amount") {
                        return read_double(in, member == "price" ? c.price : c.amount);
                    }
                    return in.skip_value();
                });
            });
        }
        return in.skip_value();
    });
}

// Reads a dry run's `plan` object; members it does not know are skipped, a time it cannot read is none.
bool read_plan(JsonScanner& in, std::optional<PlanSummary>& out) {
    PlanSummary& plan = out.emplace();
    std::string text;
    const auto read_time = [&](std::optional<util::TimePoint>& t) {
        if (in.read_null()) {
            return true;
        }
        if (in.peek() != '"' || !in.read_string(text)) {
            return false;
        }
        auto parsed = util::parse_timestamp(text, util::TimestampSyntax::rfc3339);
        t = parsed ? std::optional(*parsed) : std::nullopt;
        return true;
    };
    return in.read_object([&](std::string_view key) {
        if (key == "kind") {
            return in.peek() == '"' && in.read_string(plan.kind);
        }
        if (key == "messages") {
            return in.read_int(plan.messages);
        }
        if (key == "days") {
            return in.read_int(plan.days);
        }
        if (key == "first" || key == "last") {
            return read_time(key == "first" ? plan.first : plan.last);
        }
        if (key == "per_hour") {
            return in.peek() == '[' && in.read_array([&] { return in.read_int(plan.per_hour.emplace_back()); });
        }
        if (key == "cost") {
            return in.peek() == '{' && read_cost(in, plan.cost);
        }
        return in.skip_value();
    });
}

// Reads a result's `price`: a finite JSON number; any other value is skipped and leaves none (a
// price that cannot be read is not worth losing the row's outcome over).
bool read_price(JsonScanner& in, std::optional<double>& out) {
    std::string_view raw;
    if (!in.read_raw(raw)) {
        return false;
    }
    double price = 0;
    const auto [end, ec] = std::from_chars(raw.data(), raw.data() + raw.size(), price);
    if (ec == std::errc() && end == raw.data() + raw.size() && std::isfinite(price)) {
        out = price;
    }
    return true;
}

// Reads a `campaign` record's `rate_card`; members it does not know, or of another type, are
// skipped; a `rate_card` that is not an object is none.
bool read_rate_card(JsonScanner& in, std::optional<RateCardRef>& out) {
    if (in.peek() != '{') {
        return in.skip_value();
    }
    RateCardRef& card = out.emplace();
    return in.read_object([&](std::string_view key) {
        std::string* target = key == "path"        ? &card.path
                              : key == "sha256"    ? &card.sha256
                              : key == "currency"  ? &card.currency
                              : key == "effective" ? &card.effective
                                                   : nullptr;
        if (target == nullptr || in.peek() != '"') {
            return in.skip_value();
        }
        return in.read_string(*target);
    });
}

bool read_counts(JsonScanner& in, StatusCounts& counts) {
    std::int64_t n = 0;
    return in.read_object([&](std::string_view key) {
        const auto status = parse_status(key);
        if (!status) {
            return in.skip_value();  // e.g. a "pending" count from a later version
        }
        if (!in.read_int(n)) {
            return false;
        }
        counts[*status] = n;
        return true;
    });
}

// Reads a dry run's `message` object; members it does not know are skipped.
bool read_message(JsonScanner& in, std::optional<MessageContent>& out) {
    MessageContent& m = out.emplace();
    return in.read_object([&](std::string_view key) {
        std::string* target = key == "text" ? &m.text : key == "source" ? &m.source : nullptr;
        if (key == "label") {
            target = &m.label.emplace();
        }
        if (target == nullptr) {
            return in.skip_value();
        }
        m.image = m.image || target != &m.text;
        return in.peek() == '"' && in.read_string(*target);
    });
}

// Reads a template message's `params` array, kept as written.
bool read_params(JsonScanner& in, std::optional<MessageContent>& out) {
    std::string_view raw;
    if (!in.read_raw(raw)) {
        return false;
    }
    out.emplace().params = raw;
    return true;
}

// Reads a template message's `preview` object; members it does not know are skipped.
bool read_preview(JsonScanner& in, std::optional<TemplatePreview>& out) {
    TemplatePreview& p = out.emplace();
    return in.read_object([&](std::string_view key) {
        if (key == "buttons") {
            return in.peek() == '[' && in.read_array([&] { return in.read_string(p.buttons.emplace_back()); });
        }
        std::string* target = key == "header"   ? &p.header
                              : key == "body"   ? &p.body
                              : key == "footer" ? &p.footer
                                                : nullptr;
        if (target == nullptr) {
            return in.skip_value();
        }
        return in.peek() == '"' && in.read_string(*target);
    });
}

}  // namespace

bool read_member(JsonScanner& in, Fields& f, std::string_view name) {
    const auto key = find_key(name);
    if (!key) {
        return in.skip_value();
    }
    if (in.read_null()) {
        return true;
    }
    const auto i = static_cast<std::size_t>(*key);
    f.present[i] = true;
    const char first = in.peek();
    const auto wrong = [&](std::string_view type) {
        f.mistyped = fmt::format("\"{}\" must be {}", name, type);
        return false;
    };
    switch (kind_of(*key)) {
    case Kind::string: return first == '"' ? in.read_string(f.text[i], f.decoded[i]) : wrong("a string");
    case Kind::integer:
        return first == '-' || (first >= '0' && first <= '9') ? in.read_int(f.number[i]) : wrong("an integer");
    case Kind::strings: {
        auto& list = *key == Key::ids ? f.ids : *key == Key::defaults ? f.defaults : f.subscriber_ids;
        return first == '[' ? in.read_array([&] { return in.read_string(list.emplace_back()); })
                            : wrong("an array of strings");
    }
    case Kind::counts: return first == '{' ? read_counts(in, f.counts) : wrong("an object");
    case Kind::message:
        return first == '{'   ? read_message(in, f.message)
               : first == '[' ? read_params(in, f.message)
                              : wrong("an object or an array");
    case Kind::preview: return first == '{' ? read_preview(in, f.preview) : wrong("an object");
    case Kind::plan: return first == '{' ? read_plan(in, f.plan) : wrong("an object");
    case Kind::price: return read_price(in, f.price);
    case Kind::rate_card: return read_rate_card(in, f.rate_card);
    }
    return false;
}

}  // namespace results::detail
