#pragma once
// util::JsonScanner mirrored into nlohmann::json, to compare the two parsers on the same text
// (the scanner reads the result log; nlohmann is the reference). Shared
// by the unit test and the fuzz harness.

#include <cctype>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "util/json_scan.hpp"

namespace json_mirror {

// What a number that is not a 64-bit integer becomes on both sides: the scanner reads only
// integers, and skips any other number.
inline const std::string k_other_number = "<number>";

// Reads one value with `in`; nothing when the scanner refuses it.
inline std::optional<nlohmann::json> scan_value(util::JsonScanner& in) {
    switch (in.peek()) {
    case '{': {
        nlohmann::json object = nlohmann::json::object();
        const bool ok = in.read_object([&](std::string_view key) {
            std::string name(key);
            auto value = scan_value(in);
            if (value) {
                object[name] = std::move(*value);  // a repeated key: the last wins, as in nlohmann
            }
            return value.has_value();
        });
        return ok ? std::optional(std::move(object)) : std::nullopt;
    }
    case '[': {
        nlohmann::json array = nlohmann::json::array();
        const bool ok = in.read_array([&] {
            auto value = scan_value(in);
            if (value) {
                array.push_back(std::move(*value));
            }
            return value.has_value();
        });
        return ok ? std::optional(std::move(array)) : std::nullopt;
    }
    case '"': {
        std::string text;
        return in.read_string(text) ? std::optional<nlohmann::json>(text) : std::nullopt;
    }
    case 't':
    case 'f': {
        bool value = false;
        return in.read_bool(value) ? std::optional<nlohmann::json>(value) : std::nullopt;
    }
    case 'n': return in.read_null() ? std::optional<nlohmann::json>(nullptr) : std::nullopt;
    default: {
        util::JsonScanner attempt = in;  // an integer if it is one, else skipped as a number
        std::int64_t value = 0;
        if (attempt.read_int(value)) {
            in = attempt;
            return nlohmann::json(value);
        }
        return in.skip_value() ? std::optional<nlohmann::json>(k_other_number) : std::nullopt;
    }
    }
}

// `value` with the numbers the scanner does not read as integers replaced, as scan_value does.
inline nlohmann::json normalised(const nlohmann::json& value) {
    if (value.is_object()) {
        nlohmann::json out = nlohmann::json::object();
        for (const auto& [key, member] : value.items()) {
            out[key] = normalised(member);
        }
        return out;
    }
    if (value.is_array()) {
        nlohmann::json out = nlohmann::json::array();
        for (const auto& element : value) {
            out.push_back(normalised(element));
        }
        return out;
    }
    if (value.is_number_float()) {
        return k_other_number;
    }
    if (value.is_number_unsigned() &&
        value.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
        return k_other_number;
    }
    return value;
}

// The deepest nesting of objects and arrays in `value` (a scalar: 0).
inline int depth(const nlohmann::json& value) {
    int deepest = 0;
    if (value.is_structured()) {
        for (const auto& element : value) {
            deepest = std::max(deepest, depth(element));
        }
        return deepest + 1;
    }
    return 0;
}

// Whether `text` holds bytes that are not UTF-8, or a \u escape of a lone surrogate: the
// scanner keeps going where nlohmann refuses (such strings reach the log as U+FFFD, written
// by the log writer), so the two are not compared on such text.
inline bool has_unpaired_text(std::string_view text) {
    try {
        (void)nlohmann::json(std::string(text)).dump();
    } catch (const nlohmann::json::exception&) {
        return true;
    }
    // A high surrogate must be followed at once by a low one; a low one must follow a high one.
    const auto surrogate = [&](std::size_t at, char first, char last) {
        if (at + 6 > text.size() || text[at] != '\\' || text[at + 1] != 'u' ||
            (text[at + 2] != 'd' && text[at + 2] != 'D')) {
            return false;
        }
        const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(text[at + 3])));
        return c >= first && c <= last;
    };
    for (std::size_t at = 0; at < text.size(); ++at) {
        if (surrogate(at, '8', 'b')) {
            if (!surrogate(at + 6, 'c', 'f')) {
                return true;
            }
            at += 11;
        } else if (surrogate(at, 'c', 'f')) {
            return true;
        }
    }
    return false;
}

// "" when the scanner and nlohmann agree on `text` (both refuse it, or both read the same
// value), otherwise what differs.
inline std::string compare(std::string_view text) {
    // nlohmann's lexer takes a NUL byte for the end of the input (for C strings); the scanner
    // treats it as text, so the two are compared on what precedes the first NUL.
    text = text.substr(0, text.find('\0'));
    nlohmann::json reference;
    try {
        reference = nlohmann::json::parse(text);
    } catch (const nlohmann::json::out_of_range& e) {
        if (e.id == 406) {
            return "";  // a number past a double's range: valid JSON that nlohmann cannot hold
        }
        reference = nlohmann::json(nlohmann::json::value_t::discarded);
    } catch (const nlohmann::json::exception&) {
        reference = nlohmann::json(nlohmann::json::value_t::discarded);
    }
    util::JsonScanner in(text);
    auto scanned = scan_value(in);
    const bool scanner_ok = scanned.has_value() && in.finish();
    if (has_unpaired_text(text)) {
        return "";
    }
    if (reference.is_discarded()) {
        return scanner_ok ? "the scanner accepts what nlohmann refuses: " + scanned->dump() : "";
    }
    if (depth(reference) > 32) {
        return scanner_ok ? "the scanner accepts nesting deeper than its limit" : "";
    }
    if (!scanner_ok) {
        return "the scanner refuses what nlohmann reads (" + in.error() + ")";
    }
    if (normalised(reference) != *scanned) {
        return "different values: nlohmann " + normalised(reference).dump() + ", scanner " + scanned->dump();
    }
    return "";
}

}  // namespace json_mirror
