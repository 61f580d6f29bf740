#include "service/templates.hpp"

#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <utility>

#include "util/text.hpp"

namespace service {

namespace {

using nlohmann::json;

// The containers that hold a field wacamp reads; any other is `other`, and so is all inside it.
enum class Place : std::uint8_t { top, data, record, configuration, buttons, button, other };

// What the next value is, given the member or element it is.
enum class Slot : std::uint8_t {
    none,
    data,
    record,  // an element of data
    id,
    status,
    updated_at,
    configuration,
    name,
    category,
    language,
    header,
    text_header,
    body,
    footer,
    media,
    quick_reply,
    cta_button,
    button,  // an element of a button list
    button_text,
};

// One element of `data` written again, from its SAX events, as compact JSON.
class CompactWriter {
public:
    void open(char bracket) {
        separate();
        m_text += bracket;
        m_comma = false;
    }
    void close(char bracket) {
        m_text += bracket;
        m_comma = true;
    }
    void key(const std::string& k) {
        if (m_comma) {
            m_text += ',';
        }
        m_text += quoted(k);
        m_text += ':';
        m_after_key = true;
    }
    void scalar(std::string_view text) {
        separate();
        m_text += text;
        m_comma = true;
    }
    static std::string quoted(const std::string& text) {
        return json(text).dump(-1, ' ', false, json::error_handler_t::replace);
    }
    // Returns the element written, and starts the next.
    std::string take() {
        m_comma = false;
        m_after_key = false;
        return std::exchange(m_text, std::string());
    }

private:
    void separate() {
        if (m_after_key) {
            m_after_key = false;
        } else if (m_comma) {
            m_text += ',';
        }
    }

    std::string m_text;
    bool m_comma = false;
    bool m_after_key = false;
};

// nlohmann's SAX events of a template list, handing each record of `data` to the visitor as it
// ends, and keeping no tree. Stops (returns false) at the first fault, which error() tells.
class ListReader {
public:
    explicit ListReader(const TemplateVisitor& visit) : m_visit(visit) {}

    // Returns why the list cannot be read, or nothing.
    util::Result<void> result() const {
        if (!m_error.empty()) {
            return util::fail(m_error);
        }
        if (!m_data_seen) {
            return util::fail("the service's template list has no \"data\" array");
        }
        return {};
    }

    // The SAX interface (nlohmann::json_sax): each returns false only to stop at a fault.
    bool null() { return scalar("null"); }
    bool boolean(bool v) { return scalar(v ? "true" : "false"); }
    bool number_integer(json::number_integer_t v) { return scalar(std::to_string(v)); }
    bool number_unsigned(json::number_unsigned_t v) { return scalar(std::to_string(v)); }
    bool number_float(json::number_float_t, const json::string_t& text) { return scalar(text); }
    bool binary(json::binary_t&) { return scalar("null"); }  // never in JSON text
    bool string(json::string_t& v) {
        const Slot slot = value();
        if (!value_allowed(slot)) {
            return false;
        }
        const bool element = starts_element();
        if (m_writing) {
            m_writer.scalar(CompactWriter::quoted(v));
        }
        if (std::string* target = field(slot)) {
            *target = std::move(v);
        }
        return element ? end_element() : true;
    }
    bool start_object(std::size_t) {
        const Slot slot = value();
        if (m_depth == 0) {
            return enter(Place::top);
        }
        if (!value_allowed(slot)) {
            return false;
        }
        starts_element();
        if (m_writing) {
            m_writer.open('{');
        }
        if (slot == Slot::record) {
            m_info = TemplateInfo{};
            m_quick_reply.clear();
            m_cta_button.clear();
        } else if (slot == Slot::button) {
            m_button_text.clear();
        }
        return enter(slot == Slot::record          ? Place::record
                     : slot == Slot::configuration ? Place::configuration
                     : slot == Slot::button        ? Place::button
                                                   : Place::other);
    }
    bool key(json::string_t& k) {
        if (m_writing) {
            m_writer.key(k);
        }
        m_next = slot_of(place(m_depth), k);
        if (m_next == Slot::data && m_data_seen) {
            return fail("the service's template list names \"data\" twice");
        }
        clear(m_next);
        return true;
    }
    bool end_object() { return leave('}'); }
    bool start_array(std::size_t) {
        const Slot slot = value();
        if (m_depth == 0) {
            return fail("the service's template list is not a JSON object");
        }
        if (slot == Slot::data) {
            m_data_seen = true;
            return enter(Place::data);
        }
        starts_element();
        if (m_writing) {
            m_writer.open('[');
        }
        if (slot == Slot::quick_reply || slot == Slot::cta_button) {
            m_button_list = slot;
        }
        return enter(slot == Slot::quick_reply || slot == Slot::cta_button ? Place::buttons : Place::other);
    }
    bool end_array() { return leave(']'); }
    bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception&) {
        return fail(fmt::format("the service's template list is not valid JSON (at byte {})", position));
    }

private:
    static constexpr int k_places = 6;  // top, data, record, configuration, a button list, a button

    bool fail(std::string why) {
        if (m_error.empty()) {
            m_error = std::move(why);
        }
        return false;
    }

    Place place(int depth) const { return depth >= 1 && depth <= k_places ? m_places[depth - 1] : Place::other; }

    // The slot of the value that starts now.
    Slot value() {
        switch (place(m_depth)) {
        case Place::data: return Slot::record;
        case Place::buttons: return Slot::button;
        default: return std::exchange(m_next, Slot::none);
        }
    }

    // A value other than an array may not be the body itself nor its `data`.
    bool value_allowed(Slot slot) {
        if (m_depth == 0) {
            return fail("the service's template list is not a JSON object");
        }
        if (slot == Slot::data) {
            return fail("the service's template list has no \"data\" array");
        }
        return true;
    }

    // A scalar value; see value_allowed.
    bool scalar(std::string_view text) {
        if (!value_allowed(value())) {
            return false;
        }
        const bool element = starts_element();
        if (m_writing) {
            m_writer.scalar(text);
        }
        return element ? end_element() : true;
    }

    // Whether the value starting now is an element of `data`: its JSON is then written when asked.
    bool starts_element() {
        if (place(m_depth) != Place::data) {
            return false;
        }
        m_writing = static_cast<bool>(m_visit.json);
        return true;
    }

    bool end_element() {
        if (m_writing) {
            m_visit.json(util::json_safe(m_writer.take()));
            m_writing = false;
        }
        return true;
    }

    bool enter(Place p) {
        if (m_depth >= k_max_template_depth) {
            return fail(fmt::format("the service's template list nests deeper than {} levels: it cannot be read",
                                    k_max_template_depth));
        }
        if (m_depth < k_places) {
            m_places[m_depth] = p;
        }
        ++m_depth;
        return true;
    }

    bool leave(char bracket) {
        const Place closed = place(m_depth);
        --m_depth;
        if (closed == Place::data) {
            return true;
        }
        if (m_writing) {
            m_writer.close(bracket);
        }
        if (closed == Place::button && !m_button_text.empty()) {
            (m_button_list == Slot::quick_reply ? m_quick_reply : m_cta_button).push_back(std::move(m_button_text));
        } else if (closed == Place::record) {
            m_info.buttons = std::move(m_quick_reply);
            m_info.buttons.insert(m_info.buttons.end(), m_cta_button.begin(), m_cta_button.end());
            if (m_visit.record) {
                m_visit.record(m_info);
            }
        }
        return place(m_depth) == Place::data ? end_element() : true;
    }

    static Slot slot_of(Place in, std::string_view k) {
        switch (in) {
        case Place::top: return k == "data" ? Slot::data : Slot::none;
        case Place::record:
            return k == "_id"             ? Slot::id
                   : k == "status"        ? Slot::status
                   : k == "updatedAt"     ? Slot::updated_at
                   : k == "configuration" ? Slot::configuration
                                          : Slot::none;
        case Place::configuration:
            return k == "name"         ? Slot::name
                   : k == "category"   ? Slot::category
                   : k == "language"   ? Slot::language
                   : k == "header"     ? Slot::header
                   : k == "textHeader" ? Slot::text_header
                   : k == "body"       ? Slot::body
                   : k == "footer"     ? Slot::footer
                   : k == "media"      ? Slot::media
                   : k == "quickReply" ? Slot::quick_reply
                   : k == "ctaButton"  ? Slot::cta_button
                                       : Slot::none;
        case Place::button: return k == "text" ? Slot::button_text : Slot::none;
        default: return Slot::none;
        }
    }

    // The string a string value in `slot` becomes.
    std::string* field(Slot slot) {
        switch (slot) {
        case Slot::id: return &m_info.id;
        case Slot::status: return &m_info.status;
        case Slot::updated_at: return &m_info.updated_at;
        case Slot::name: return &m_info.name;
        case Slot::category: return &m_info.category;
        case Slot::language: return &m_info.language;
        case Slot::header: return &m_info.header;
        case Slot::text_header: return &m_info.text_header;
        case Slot::body: return &m_info.body;
        case Slot::footer: return &m_info.footer;
        case Slot::media: return &m_info.media;
        case Slot::button_text: return &m_button_text;
        default: return nullptr;
        }
    }

    // Forgets what an earlier member of the same name said: the last one counts.
    void clear(Slot slot) {
        switch (slot) {
        case Slot::configuration: {
            TemplateInfo fresh;
            fresh.id = std::move(m_info.id);
            fresh.status = std::move(m_info.status);
            fresh.updated_at = std::move(m_info.updated_at);
            m_info = std::move(fresh);
            m_quick_reply.clear();
            m_cta_button.clear();
            break;
        }
        case Slot::quick_reply: m_quick_reply.clear(); break;
        case Slot::cta_button: m_cta_button.clear(); break;
        default:
            if (std::string* text = field(slot)) {
                text->clear();
            }
        }
    }

    const TemplateVisitor& m_visit;
    std::array<Place, k_places> m_places{};
    int m_depth = 0;
    Slot m_next = Slot::none;
    Slot m_button_list = Slot::none;
    bool m_data_seen = false;
    bool m_writing = false;
    std::string m_error;
    CompactWriter m_writer;
    TemplateInfo m_info;
    std::vector<std::string> m_quick_reply, m_cta_button;
    std::string m_button_text;
};

}  // namespace

util::Result<void> read_templates(const HttpResponse& response, const TemplateVisitor& visit) {
    if (response.body_cut) {
        return util::fail(fmt::format("the service's template list is larger than {} MiB, the most wacamp reads",
                                      k_max_body_cap >> 20));
    }
    ListReader reader(visit);
    json::sax_parse(response.body.begin(), response.body.end(), &reader);
    return reader.result();
}

}  // namespace service
