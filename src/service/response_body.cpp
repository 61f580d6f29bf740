#include "service/response_body.hpp"

#include <simdjson.h>
#include <array>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <utility>

#include "util/utf8.hpp"

namespace service {

namespace {

using nlohmann::json;

constexpr std::size_t k_max_error_text = 300;
// The longest body simdjson reads. Its parser keeps buffers the size of the longest body it has
// read (one parser per thread, for the whole run); a send's answer is about 100 bytes, a
// template list may be megabytes, which nlohmann's SAX parser reads without holding a tree.
constexpr std::size_t k_fast_max = 64 * 1024;

// The containers that hold a fact; any other is `other`, and so is everything inside it.
enum class Place : std::uint8_t { top, error, error_data, data, messages, first_message, other };

// What the next value is, given the member or element it is.
enum class Slot : std::uint8_t {
    none,
    success,
    error,
    top_message,
    top_message_id,
    top_id,
    data,
    messages,
    error_code,
    error_message,
    error_data,
    details,
    data_message_id,
    first_message,
    first_message_id
};

// Returns `text` on one line (line breaks and tabs as spaces), clipped at 300 bytes.
std::string clip_error_text(std::string_view text) {
    std::string out(text);
    for (char& c : out) {
        if (c == '\n' || c == '\r' || c == '\t') {
            c = ' ';
        }
    }
    return util::clip_utf8(out, k_max_error_text);
}

// The SAX events of one body (nlohmann's, or simdjson's document replayed as them), keeping the
// members BodyFacts needs and no tree. A member named twice counts as its last value, as a DOM
// would have it: its fact is cleared at its key.
class BodyReader {
public:
    // Returns the facts, or nothing when the body was no JSON object.
    std::optional<BodyFacts> facts() && {
        if (m_failed || !m_object) {
            return std::nullopt;
        }
        BodyFacts f;
        f.is_json = true;
        f.success_false = m_success_false;
        f.error_code = m_error_code;
        f.error_text = m_error_message;
        if (!m_details.empty()) {
            f.error_text += f.error_text.empty() ? m_details : " — " + m_details;
        }
        f.error_text = clip_error_text(f.error_text.empty() ? m_top_message : f.error_text);
        for (std::string* id : {&m_data_message_id, &m_top_message_id, &m_first_message_id}) {
            if (!id->empty()) {
                f.message_id = std::move(*id);
                break;
            }
        }
        f.top_id = std::move(m_top_id);
        return f;
    }

    // The SAX interface (nlohmann::json_sax): each returns false only to stop at a parse error.
    bool null() { return skip(); }
    bool boolean(bool v) {
        if (value() == Slot::success) {
            m_success_false = !v;
        }
        return true;
    }
    bool number_integer(json::number_integer_t v) {
        if (value() == Slot::error_code) {
            m_error_code = v;
        }
        return true;
    }
    bool number_unsigned(json::number_unsigned_t v) {
        // A code past INT64_MAX is none, rather than wrapped to a negative one.
        if (value() == Slot::error_code && v <= static_cast<std::uint64_t>(std::numeric_limits<long long>::max())) {
            m_error_code = static_cast<long long>(v);
        }
        return true;
    }
    bool number_float(json::number_float_t, const json::string_t&) { return skip(); }
    bool string(json::string_t& v) {
        if (std::string* target = text_of(value())) {
            *target = std::move(v);
        }
        return true;
    }
    bool binary(json::binary_t&) { return skip(); }
    bool start_object(std::size_t) {
        m_object = m_object || m_depth == 0;
        return enter(m_depth == 0 ? Place::top : object_place(value()));
    }
    bool key(json::string_t& k) {
        m_next = m_depth <= k_places ? slot_of(m_places[m_depth - 1], k) : Slot::none;
        clear(m_next);
        return true;
    }
    bool end_object() { return leave(); }
    bool start_array(std::size_t) {
        const Slot slot = value();
        if (slot == Slot::messages) {
            m_messages_seen = 0;
        }
        return enter(slot == Slot::messages ? Place::messages : Place::other);
    }
    bool end_array() { return leave(); }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) {
        m_failed = true;
        return false;
    }

private:
    static constexpr int k_places = 3;  // the deepest container that holds a fact

    // The slot of the value that starts now (none for the body itself).
    Slot value() {
        if (m_depth == 0) {
            return Slot::none;
        }
        if (m_depth <= k_places && m_places[m_depth - 1] == Place::messages) {
            return m_messages_seen++ == 0 ? Slot::first_message : Slot::none;
        }
        return std::exchange(m_next, Slot::none);
    }

    static Place object_place(Slot slot) {
        switch (slot) {
        case Slot::error: return Place::error;
        case Slot::error_data: return Place::error_data;
        case Slot::data: return Place::data;
        case Slot::first_message: return Place::first_message;
        default: return Place::other;
        }
    }

    // A value no fact is made of.
    bool skip() {
        value();
        return true;
    }

    bool enter(Place place) {
        if (m_depth < k_places) {
            m_places[m_depth] = place;
        }
        ++m_depth;
        return true;
    }

    bool leave() {
        --m_depth;
        return true;
    }

    static Slot slot_of(Place place, std::string_view k) {
        switch (place) {
        case Place::top:
            return k == "success"     ? Slot::success
                   : k == "error"     ? Slot::error
                   : k == "message"   ? Slot::top_message
                   : k == "messageId" ? Slot::top_message_id
                   : k == "id"        ? Slot::top_id
                   : k == "data"      ? Slot::data
                   : k == "messages"  ? Slot::messages
                                      : Slot::none;
        case Place::error:
            return k == "code"         ? Slot::error_code
                   : k == "message"    ? Slot::error_message
                   : k == "error_data" ? Slot::error_data
                                       : Slot::none;
        case Place::error_data: return k == "details" ? Slot::details : Slot::none;
        case Place::data: return k == "messageId" ? Slot::data_message_id : Slot::none;
        case Place::first_message: return k == "id" ? Slot::first_message_id : Slot::none;
        default: return Slot::none;
        }
    }

    // The string a string value in `slot` becomes; the error member may be a plain string.
    std::string* text_of(Slot slot) {
        switch (slot) {
        case Slot::error:
        case Slot::error_message: return &m_error_message;
        case Slot::top_message: return &m_top_message;
        case Slot::top_message_id: return &m_top_message_id;
        case Slot::top_id: return &m_top_id;
        case Slot::details: return &m_details;
        case Slot::data_message_id: return &m_data_message_id;
        case Slot::first_message_id: return &m_first_message_id;
        default: return nullptr;
        }
    }

    // Forgets what an earlier member of the same name said: the last one counts.
    void clear(Slot slot) {
        switch (slot) {
        case Slot::success: m_success_false = false; break;
        case Slot::error:
            m_error_code.reset();
            m_error_message.clear();
            m_details.clear();
            break;
        case Slot::error_code: m_error_code.reset(); break;
        case Slot::error_data: m_details.clear(); break;
        case Slot::data: m_data_message_id.clear(); break;
        case Slot::messages: m_first_message_id.clear(); break;
        default:
            if (std::string* text = text_of(slot)) {
                text->clear();
            }
        }
    }

    std::array<Place, k_places> m_places{};
    int m_depth = 0;
    int m_messages_seen = 0;
    Slot m_next = Slot::none;
    bool m_object = false;
    bool m_failed = false;
    bool m_success_false = false;
    std::optional<long long> m_error_code;
    std::string m_error_message, m_details, m_top_message;
    std::string m_data_message_id, m_top_message_id, m_top_id, m_first_message_id;
};

// `body` with each byte that starts no UTF-8 sequence replaced by U+FFFD: nlohmann refuses such
// text, and a service that garbles one name should not lose its error code.
std::string valid_utf8(std::string_view body) {
    std::string out;
    out.reserve(body.size() + 16);
    while (!body.empty()) {
        const std::size_t n = util::decode_utf8(body).length;
        out.append(n > 0 ? body.substr(0, n) : std::string_view("\xEF\xBF\xBD"));
        body.remove_prefix(n > 0 ? n : 1);
    }
    return out;
}

// Hands `element` to `reader` as nlohmann's SAX parser would: the same events, in document order,
// duplicate members included. simdjson's depth limit (1024) bounds the recursion.
void replay(const simdjson::dom::element& element, BodyReader& reader) {
    using Type = simdjson::dom::element_type;
    switch (element.type()) {
    case Type::OBJECT: {
        const simdjson::dom::object object = element.get_object().value_unsafe();
        reader.start_object(object.size());
        for (const auto member : object) {
            std::string key(member.key);
            reader.key(key);
            replay(member.value, reader);
        }
        reader.end_object();
        break;
    }
    case Type::ARRAY: {
        const simdjson::dom::array array = element.get_array().value_unsafe();
        reader.start_array(array.size());
        for (const auto item : array) {
            replay(item, reader);
        }
        reader.end_array();
        break;
    }
    case Type::STRING: {
        std::string text(element.get_string().value_unsafe());
        reader.string(text);
        break;
    }
    // nlohmann hands a non-negative integer over as unsigned; the reader takes either the same.
    case Type::INT64: reader.number_integer(element.get_int64().value_unsafe()); break;
    case Type::UINT64: reader.number_unsigned(element.get_uint64().value_unsafe()); break;
    case Type::DOUBLE: reader.number_float(element.get_double().value_unsafe(), {}); break;
    case Type::BOOL: reader.boolean(element.get_bool().value_unsafe()); break;
    case Type::NULL_VALUE: reader.null(); break;
    }
}

// Reads `body` (at most k_fast_max bytes) with simdjson, several times faster than nlohmann's
// parser on the service's short answers (docs/decisions/performance.md). Nothing when simdjson
// refuses the body: nlohmann then reads it, so that what it accepts and simdjson does not
// (nesting past 1024, an integer past 64 bits, a NUL byte ending the text) still reads as before.
std::optional<BodyFacts> read_fast(std::string_view body) {
    thread_local simdjson::dom::parser parser;
    simdjson::dom::element root;
    if (parser.parse(body.data(), body.size()).get(root) != simdjson::SUCCESS) {
        return std::nullopt;
    }
    BodyReader reader;
    replay(root, reader);
    return std::move(reader).facts();
}

// What nlohmann's SAX parser reads of `body` (valid UTF-8, not empty).
BodyFacts read_slow(std::string_view body) {
    BodyReader reader;
    json::sax_parse(body.begin(), body.end(), &reader);
    if (auto facts = std::move(reader).facts()) {
        return std::move(*facts);
    }
    BodyFacts facts;
    facts.error_text = clip_error_text(body);
    return facts;
}

enum class Parser { simdjson_first, nlohmann };

BodyFacts read_with(std::string_view body, Parser parser) {
    if (body.empty()) {
        return BodyFacts{};  // what the parser's failure gives, without building its error
    }
    std::string repaired;
    if (util::find_invalid_utf8(body) != std::string_view::npos) {
        repaired = valid_utf8(body);
        body = repaired;
    }
    if (parser == Parser::simdjson_first && body.size() <= k_fast_max) {
        if (auto facts = read_fast(body)) {
            return std::move(*facts);
        }
    }
    return read_slow(body);
}

}  // namespace

BodyFacts read_body(std::string_view body) {
    return read_with(body, Parser::simdjson_first);
}

BodyFacts detail::read_body_nlohmann(std::string_view body) {
    return read_with(body, Parser::nlohmann);
}

}  // namespace service
