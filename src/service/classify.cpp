#include "service/classify.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <ctime>
#include <nlohmann/json.hpp>
#include <utility>

#include "util/json_scan.hpp"
#include "util/utf8.hpp"

namespace service {

namespace {

using nlohmann::json;

constexpr long long k_rate_limit_codes[] = {4, 80007, 130429, 131056};
constexpr long long k_auth_codes[] = {0, 190, 368};
constexpr long long k_spam_limit_code = 131048;
constexpr size_t k_max_error_text = 300;

bool contains(const auto& list, long long code) {
    return std::find(std::begin(list), std::end(list), code) != std::end(list);
}

std::string clip(std::string text) {
    for (char& c : text) {
        if (c == '\n' || c == '\r' || c == '\t') {
            c = ' ';
        }
    }
    return util::clip_utf8(text, k_max_error_text);
}

std::string string_at(const json& j, const char* key) {
    auto it = j.find(key);
    if (it != j.end() && it->is_string()) {
        return it->get<std::string>();
    }
    return {};
}

// What a (possibly non-JSON) body tells us: Meta's error object, the envelope's success flag.
struct BodyFacts {
    bool is_json = false;
    bool success_false = false;
    std::optional<long long> error_code;
    std::string error_text;
    std::string message_id;
};

std::string find_message_id(const json& j) {
    if (auto data = j.find("data"); data != j.end() && data->is_object()) {
        if (auto id = string_at(*data, "messageId"); !id.empty()) {
            return id;
        }
    }
    for (const char* key : {"messageId", "id"}) {
        if (auto id = string_at(j, key); !id.empty()) {
            return id;
        }
    }
    if (auto messages = j.find("messages");
        messages != j.end() && messages->is_array() && !messages->empty() && (*messages)[0].is_object()) {
        return string_at((*messages)[0], "id");
    }
    return {};
}

// Reads the members that matter with a pull scanner, skipping the rest: an answer a
// message costs a DOM otherwise (a fifth of the send path's instructions). Returns nothing
// for anything unusual (not an object, odd types, bad JSON): read_body_dom decides those.
std::optional<BodyFacts> scan_body(std::string_view body) {
    util::JsonScanner in(body);
    if (in.peek() != '{') {
        return std::nullopt;
    }
    BodyFacts facts;
    facts.is_json = true;
    std::string error_message, details, top_message, data_message_id, top_message_id, top_id, first_message_id;
    const auto string_or_skip = [&in](std::string& out) {
        return in.peek() == '"' ? in.read_string(out) : in.skip_value();
    };
    const auto read_error = [&]() {
        if (in.peek() == '"') {
            return in.read_string(error_message);
        }
        if (in.peek() != '{') {
            return in.skip_value();
        }
        return in.read_object([&](std::string_view key) {
            if (key == "code") {
                const char c = in.peek();
                if (c != '-' && (c < '0' || c > '9')) {
                    return in.skip_value();
                }
                std::int64_t code = 0;
                if (!in.read_int(code)) {
                    return false;  // a fraction or an exponent: not an integer code
                }
                facts.error_code = code;
                return true;
            }
            if (key == "message") {
                return string_or_skip(error_message);
            }
            if (key == "error_data" && in.peek() == '{') {
                return in.read_object(
                    [&](std::string_view k) { return k == "details" ? string_or_skip(details) : in.skip_value(); });
            }
            return in.skip_value();
        });
    };
    const bool read = in.read_object([&](std::string_view key) {
        if (key == "success") {
            if (in.peek() == 't' || in.peek() == 'f') {
                bool value = true;
                if (!in.read_bool(value)) {
                    return false;
                }
                facts.success_false = !value;
                return true;
            }
            return in.skip_value();
        }
        if (key == "error") {
            return read_error();
        }
        if (key == "message") {
            return string_or_skip(top_message);
        }
        if (key == "messageId") {
            return string_or_skip(top_message_id);
        }
        if (key == "id") {
            return string_or_skip(top_id);
        }
        if (key == "data" && in.peek() == '{') {
            return in.read_object([&](std::string_view k) {
                return k == "messageId" ? string_or_skip(data_message_id) : in.skip_value();
            });
        }
        if (key == "messages" && in.peek() == '[') {
            bool first = true;
            return in.read_array([&]() {
                if (std::exchange(first, false) && in.peek() == '{') {
                    return in.read_object([&](std::string_view k) {
                        return k == "id" ? string_or_skip(first_message_id) : in.skip_value();
                    });
                }
                return in.skip_value();
            });
        }
        return in.skip_value();
    });
    if (!read || !in.finish()) {
        return std::nullopt;
    }
    facts.error_text = error_message;
    if (!details.empty()) {
        facts.error_text += facts.error_text.empty() ? details : " — " + details;
    }
    if (facts.error_text.empty()) {
        facts.error_text = top_message;
    }
    facts.error_text = clip(facts.error_text);
    for (const std::string* id : {&data_message_id, &top_message_id, &top_id, &first_message_id}) {
        if (!id->empty()) {
            facts.message_id = *id;
            break;
        }
    }
    return facts;
}

BodyFacts read_body_dom(const std::string& body) {
    BodyFacts facts;
    json j = json::parse(body, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object()) {
        facts.error_text = clip(body);
        return facts;
    }
    facts.is_json = true;
    if (auto s = j.find("success"); s != j.end() && s->is_boolean() && !s->get<bool>()) {
        facts.success_false = true;
    }
    if (auto e = j.find("error"); e != j.end()) {
        if (e->is_object()) {
            if (auto code = e->find("code"); code != e->end() && code->is_number_integer()) {
                facts.error_code = code->get<long long>();
            }
            facts.error_text = string_at(*e, "message");
            if (auto data = e->find("error_data"); data != e->end() && data->is_object()) {
                if (auto details = string_at(*data, "details"); !details.empty()) {
                    facts.error_text += facts.error_text.empty() ? details : " — " + details;
                }
            }
        } else if (e->is_string()) {
            facts.error_text = e->get<std::string>();
        }
    }
    if (facts.error_text.empty()) {
        facts.error_text = string_at(j, "message");
    }
    facts.error_text = clip(facts.error_text);
    facts.message_id = find_message_id(j);
    return facts;
}

BodyFacts read_body(const std::string& body) {
    if (auto scanned = scan_body(body)) {
        return std::move(*scanned);
    }
    return read_body_dom(body);
}

std::string describe(long status, const BodyFacts& facts) {
    if (facts.error_text.empty()) {
        return fmt::format("HTTP {}", status);
    }
    return fmt::format("HTTP {}: {}", status, facts.error_text);
}

}  // namespace

std::string_view to_string(Cause cause) {
    switch (cause) {
    case Cause::none: return "";
    case Cause::rate_limited: return "rate_limited";
    case Cause::transient: return "transient";
    case Cause::auth: return "auth";
    case Cause::spam_limit: return "spam_limit";
    case Cause::rejected: return "rejected";
    case Cause::tls: return "tls";
    }
    return "";
}

Outcome classify_response(const HttpResponse& response, std::chrono::system_clock::time_point now) {
    Outcome out;
    const long status = response.status;
    out.http_status = status;
    BodyFacts facts = read_body(response.body);
    out.error_code = facts.error_code;
    const bool is_2xx = status >= 200 && status < 300;
    const auto code = facts.error_code;

    if (status == 401 || status == 403 || (code && contains(k_auth_codes, *code))) {
        out.cause = Cause::auth;
    } else if (code && *code == k_spam_limit_code) {
        out.cause = Cause::spam_limit;
    } else if (status == 429 || (code && contains(k_rate_limit_codes, *code))) {
        out.cause = Cause::rate_limited;
        out.retry_after = parse_retry_after(find_header(response.headers, "retry-after"), now);
    } else if (status == 408 || (status >= 500 && status < 600)) {
        // The service answered that it failed: retried. Only no answer at all is ambiguous.
        out.cause = Cause::transient;
    } else if (is_2xx && !facts.success_false && !code) {
        out.cause = Cause::none;
        out.message_id = facts.message_id;
        return out;
    } else {
        out.cause = Cause::rejected;
    }
    out.error = describe(status, facts);
    return out;
}

Outcome classify_transport_error(const TransportError& error) {
    Outcome out;
    if (error.failure == TransportFailure::certificate) {
        // Retrying would fail the same way, or worse, talk to whoever holds that certificate.
        out.cause = Cause::tls;
        out.error = "TLS certificate verification failed: " + error.message;
        return out;
    }
    out.cause = Cause::transient;
    out.ambiguous = error.request_sent;
    out.error = error.message;
    return out;
}

Outcome classify(const Completion& completion, std::chrono::system_clock::time_point now) {
    if (const auto* response = std::get_if<HttpResponse>(&completion.result)) {
        return classify_response(*response, now);
    }
    return classify_transport_error(std::get<TransportError>(completion.result));
}

std::optional<std::chrono::milliseconds> parse_retry_after(std::string_view value,
                                                           std::chrono::system_clock::time_point now) {
    while (!value.empty() && value.front() == ' ') {
        value.remove_prefix(1);
    }
    while (!value.empty() && value.back() == ' ') {
        value.remove_suffix(1);
    }
    if (value.empty()) {
        return std::nullopt;
    }
    if (std::isdigit(static_cast<unsigned char>(value.front()))) {
        std::string text(value);
        char* end = nullptr;
        double seconds = std::strtod(text.c_str(), &end);
        if (end != text.c_str() + text.size() || !std::isfinite(seconds) || seconds < 0) {
            return std::nullopt;
        }
        seconds = std::min(seconds, 86'400.0);  // a day at most: beyond that it's a broken header
        return std::chrono::milliseconds(static_cast<long long>(std::llround(seconds * 1000)));
    }
    // HTTP date, IMF-fixdate: "Sun, 06 Nov 1994 08:49:37 GMT".
    std::tm tm{};
    std::string text(value);
    const char* end = strptime(text.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &tm);
    if (end == nullptr || *end != '\0') {
        return std::nullopt;
    }
    auto at = std::chrono::system_clock::from_time_t(timegm(&tm));
    if (at <= now) {
        return std::chrono::milliseconds(0);
    }
    auto delta = std::chrono::duration_cast<std::chrono::milliseconds>(at - now);
    return std::min(delta, std::chrono::milliseconds(86'400'000));
}

}  // namespace service
