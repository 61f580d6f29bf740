// The result log's reader (util::JsonScanner) timed against nlohmann's SAX parser on the same
// lines (docs/decisions/performance.md, "JSON through a library").
//   bench_log_reader LOG [ROUNDS]   (LOG from bench/synth_log.py N; ROUNDS default 5)
// Loads LOG's lines, then prints for each way of reading them the best over ROUNDS of the CPU
// time a line:
//   record      results::parse_record: the scanner into the members, then the Record built
//               (what a replay, a report and a rerun call for every line)
//   scan        the scanner into the same members alone (results::detail::read_member)
//   sax_fields  nlohmann::json::sax_parse with a handler that keeps the same members: each
//               top-level key looked up among the scanner's names, its string copied, its
//               integer kept (what a reader on nlohmann does at the least)
//   sax_null    nlohmann::json::sax_parse with a handler that keeps nothing: the floor of any
//               reader built on nlohmann's parser
// and the lines each read without an error (the same for all four, or the comparison is off).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "results/record_fields.hpp"
#include "results/records.hpp"
#include "util/json_scan.hpp"

namespace {

using json = nlohmann::json;
using results::detail::Fields;
using results::detail::k_key_count;
using results::detail::k_key_names;

double cpu_ns() {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) * 1e9 + static_cast<double>(t.tv_nsec);
}

// Keeps what the scanner's Fields keep, from nlohmann's events: a top-level member's string or
// integer in its slot, nested values walked.
class FieldsHandler {
public:
    explicit FieldsHandler(Fields& f) : m_f(f) {}

    bool null() { return true; }
    bool boolean(bool) { return true; }
    bool number_integer(json::number_integer_t v) { return number(v); }
    bool number_unsigned(json::number_unsigned_t v) { return number(static_cast<std::int64_t>(v)); }
    bool number_float(json::number_float_t, const json::string_t&) { return true; }
    bool string(json::string_t& v) {
        if (m_depth == 1 && m_slot < k_key_count) {
            m_f.present[m_slot] = true;
            m_f.decoded[m_slot] = v;
            m_f.text[m_slot] = m_f.decoded[m_slot];
        }
        return true;
    }
    bool binary(json::binary_t&) { return true; }
    bool start_object(std::size_t) {
        ++m_depth;
        return true;
    }
    bool key(json::string_t& k) {
        if (m_depth == 1) {
            m_slot =
                static_cast<std::size_t>(std::find(k_key_names.begin(), k_key_names.end(), k) - k_key_names.begin());
        }
        return true;
    }
    bool end_object() {
        --m_depth;
        return true;
    }
    bool start_array(std::size_t) {
        ++m_depth;
        return true;
    }
    bool end_array() {
        --m_depth;
        return true;
    }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) { return false; }

private:
    bool number(std::int64_t v) {
        if (m_depth == 1 && m_slot < k_key_count) {
            m_f.present[m_slot] = true;
            m_f.number[m_slot] = v;
        }
        return true;
    }

    Fields& m_f;
    int m_depth = 0;
    std::size_t m_slot = k_key_count;
};

// Keeps nothing.
struct NullHandler {
    bool null() { return true; }
    bool boolean(bool) { return true; }
    bool number_integer(json::number_integer_t) { return true; }
    bool number_unsigned(json::number_unsigned_t) { return true; }
    bool number_float(json::number_float_t, const json::string_t&) { return true; }
    bool string(json::string_t&) { return true; }
    bool binary(json::binary_t&) { return true; }
    bool start_object(std::size_t) { return true; }
    bool key(json::string_t&) { return true; }
    bool end_object() { return true; }
    bool start_array(std::size_t) { return true; }
    bool end_array() { return true; }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) { return false; }
};

bool read_record(std::string_view line) {
    return results::parse_record(line).ok();
}

bool read_scan(std::string_view line) {
    Fields f;
    util::JsonScanner in(line);
    return in.read_object([&](std::string_view name) { return results::detail::read_member(in, f, name); }) &&
           in.finish() && f.has(results::detail::Key::event);
}

bool read_sax_fields(std::string_view line) {
    Fields f;
    FieldsHandler handler(f);
    return json::sax_parse(line.begin(), line.end(), &handler) && f.has(results::detail::Key::event);
}

bool read_sax_null(std::string_view line) {
    NullHandler handler;
    return json::sax_parse(line.begin(), line.end(), &handler);
}

struct Timing {
    double best_ns = 1e300;
    std::size_t ok = 0;
};

template <typename F>
Timing time_lines(const std::vector<std::string>& lines, int rounds, F read) {
    Timing t;
    for (int round = 0; round < rounds; ++round) {
        std::size_t ok = 0;
        const double start = cpu_ns();
        for (const std::string& line : lines) {
            ok += read(line) ? 1 : 0;
        }
        t.best_ns = std::min(t.best_ns, (cpu_ns() - start) / static_cast<double>(lines.size()));
        t.ok = ok;
    }
    return t;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: bench_log_reader LOG [ROUNDS]\n");
        return 2;
    }
    const int rounds = argc > 2 ? std::max(1, std::atoi(argv[2])) : 5;
    std::ifstream in(argv[1]);
    if (!in) {
        std::fprintf(stderr, "bench_log_reader: cannot read %s\n", argv[1]);
        return 1;
    }
    std::vector<std::string> lines;
    std::size_t bytes = 0;
    for (std::string line; std::getline(in, line);) {
        bytes += line.size() + 1;
        lines.push_back(std::move(line));
    }
    if (lines.empty()) {
        std::fprintf(stderr, "bench_log_reader: %s has no lines\n", argv[1]);
        return 1;
    }
    std::printf("%zu lines, %.0f bytes a line, best of %d rounds, CPU time a line\n", lines.size(),
                static_cast<double>(bytes) / static_cast<double>(lines.size()), rounds);
    const Timing record = time_lines(lines, rounds, read_record);
    const Timing scan = time_lines(lines, rounds, read_scan);
    const Timing sax_fields = time_lines(lines, rounds, read_sax_fields);
    const Timing sax_null = time_lines(lines, rounds, read_sax_null);
    const auto row = [&](const char* name, const Timing& t) {
        std::printf("%-11s %8.0f ns  %5.2fx scan  %5.2fx record  %zu read\n", name, t.best_ns, t.best_ns / scan.best_ns,
                    t.best_ns / record.best_ns, t.ok);
    };
    row("record", record);
    row("scan", scan);
    row("sax_fields", sax_fields);
    row("sax_null", sax_null);
    return 0;
}
