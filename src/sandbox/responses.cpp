#include "sandbox/responses.hpp"

#include <fmt/format.h>
#include <chrono>
#include <nlohmann/json.hpp>
#include <random>

namespace sandbox {

namespace {

using Json = nlohmann::ordered_json;

std::string dump(const Json& body) {
    return body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// A bijective mixer (splitmix64's finaliser): distinct counters give distinct outputs.
std::uint64_t mix(std::uint64_t x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

}  // namespace

std::string meta_error_body(const MetaError& error, std::string_view fbtrace_id, std::string_view message,
                            std::string_view details) {
    std::string_view text = message.empty() ? error.title : message;
    Json body;
    body["success"] = false;
    body["message"] = text;
    body["error"] = {
        {"message", fmt::format("(#{}) {}", error.code, text)},
        {"type", "OAuthException"},
        {"code", error.code},
        {"error_data", {{"details", details.empty() ? (error.details.empty() ? text : error.details) : details}}},
        {"fbtrace_id", fbtrace_id},
    };
    return dump(body);
}

std::string send_ok_body(std::string_view message_id) {
    Json body;
    body["success"] = true;
    body["message"] = "Message sent successfully";
    body["data"] = {{"messageId", message_id}};
    return dump(body);
}

std::string status_update_ok_body(long modified) {
    Json body;
    body["success"] = true;
    body["message"] = "Users status updated";
    body["data"] = {{"modifiedCount", modified}};
    return dump(body);
}

std::string templates_body(const nlohmann::ordered_json& records) {
    Json body;
    body["success"] = true;
    body["data"] = records;
    return dump(body);
}

std::string not_found_body(std::string_view method, std::string_view path) {
    Json body;
    body["success"] = false;
    body["message"] = fmt::format("Cannot {} {}", method, path);
    return dump(body);
}

IdSource::IdSource() {
    std::random_device device;
    auto now = static_cast<std::uint64_t>(std::chrono::system_clock::now().time_since_epoch().count());
    m_instance = mix((static_cast<std::uint64_t>(device()) << 32) ^ device() ^ now);
}

std::string IdSource::next_message_id() {
    std::uint64_t n = m_counter.fetch_add(1, std::memory_order_relaxed);
    return fmt::format("wamid.HBgM{:016X}{:012X}", m_instance, n);
}

std::string IdSource::next_trace_id() {
    static constexpr std::string_view k_alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    std::uint64_t x = mix(m_instance ^ mix(m_counter.fetch_add(1, std::memory_order_relaxed)));
    std::string id = "A";
    for (int i = 0; i < 10; ++i) {
        id.push_back(k_alphabet[x & 63U]);
        x >>= 6;
    }
    return id;
}

}  // namespace sandbox
