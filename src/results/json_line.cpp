#include "results/json_line.hpp"

#include "util/json_string.hpp"
#include "util/time.hpp"

namespace results {

namespace {

void append(fmt::memory_buffer& out, std::string_view text) {
    out.append(text.data(), text.data() + text.size());
}

}  // namespace

LineBuilder::LineBuilder(std::string_view event) {
    append(m_out, "{\"event\":");
    util::append_json_string(m_out, event);
}

void LineBuilder::add_key(std::string_view key) {
    if (!m_first_member) {
        m_out.push_back(',');
    }
    m_first_member = false;
    m_out.push_back('"');
    append(m_out, key);
    append(m_out, "\":");
}

void LineBuilder::add_string(std::string_view key, std::string_view value) {
    add_key(key);
    util::append_json_string(m_out, value);
}

void LineBuilder::add_int(std::string_view key, std::int64_t value) {
    add_key(key);
    const fmt::format_int digits(value);
    m_out.append(digits.data(), digits.data() + digits.size());
}

void LineBuilder::add_time(std::string_view key, util::TimePoint value) {
    add_key(key);
    char text[util::k_timestamp_length];
    util::write_timestamp(value, text);
    m_out.push_back('"');
    m_out.append(text, text + util::k_timestamp_length);
    m_out.push_back('"');
}

void LineBuilder::add_strings(std::string_view key, const std::vector<std::string>& values) {
    add_key(key);
    m_out.push_back('[');
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (i > 0) {
            m_out.push_back(',');
        }
        util::append_json_string(m_out, values[i]);
    }
    m_out.push_back(']');
}

void LineBuilder::add_raw(std::string_view key, std::string_view json) {
    add_key(key);
    m_out.append(json.data(), json.data() + json.size());
}

void LineBuilder::add_counts(std::string_view key, const StatusCounts& counts) {
    add_key(key);
    m_out.push_back('{');
    for (const Status s : k_all_statuses) {
        if (s != k_all_statuses.front()) {
            m_out.push_back(',');
        }
        util::append_json_string(m_out, to_string(s));
        m_out.push_back(':');
        const fmt::format_int digits(counts[s]);
        m_out.append(digits.data(), digits.data() + digits.size());
    }
    m_out.push_back('}');
}

void LineBuilder::begin_object(std::string_view key) {
    add_key(key);
    m_out.push_back('{');
    m_first_member = true;
}

void LineBuilder::end_object() {
    m_out.push_back('}');
    m_first_member = false;
}

std::string LineBuilder::finish() {
    append(m_out, "}\n");
    return fmt::to_string(m_out);
}

}  // namespace results
