// The text escapers timed: util::printable, util::json_safe, report::html_escape and
// util::find_invalid_utf8 on a plain ASCII message and a mixed one (Devanagari, an emoji,
// controls, a bidi override, a stray byte). Prints each one's CPU time per call, the best of
// ROUNDS rounds of CALLS calls (docs/decisions.md, "Escaping text").
//   bench_text_escape [CALLS ROUNDS [INDEX]]   (defaults 1000000 5; INDEX: that one alone)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <string_view>

#include "report/html.hpp"
#include "util/text.hpp"
#include "util/utf8.hpp"

namespace {

volatile std::size_t g_sink = 0;

int g_calls = 1000000;
int g_rounds = 5;

double cpu_ns() {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) * 1e9 + static_cast<double>(t.tv_nsec);
}

// The best over g_rounds of the CPU time of one call of `f`, averaged over g_calls calls.
template <typename F>
double best_ns(F f) {
    double best = 1e300;
    for (int round = 0; round < g_rounds; ++round) {
        const double start = cpu_ns();
        for (int i = 0; i < g_calls; ++i) {
            g_sink = g_sink + f().size();
        }
        best = std::min(best, (cpu_ns() - start) / g_calls);
    }
    return best;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc > 2) {
        g_calls = std::atoi(argv[1]);
        g_rounds = std::atoi(argv[2]);
    }
    const std::string ascii =
        "Aarav Shah, your order 12345 has shipped to 221B Baker Street; track it at example.com/t/9Q";
    const std::string mixed =
        "Aarav Sh\xc4\x81h \xe2\x80\x94 \xe0\xa4\xa8\xe0\xa4\xae\xe0\xa4\xb8\xe0\xa5\x8d\xe0\xa4\xa4\xe0\xa5\x87 "
        "caf\xc3\xa9\tline\nnext \xf0\x9f\x98\x80 \x1b[31mred\xe2\x80\xae <b>&'\"</b> \xff end";
    const std::string json_ascii =
        "{\"row\":17,\"status\":\"sent\",\"name\":\"Aarav Shah\",\"error\":\"\",\"latency_ms\":412}";
    const std::string json_mixed =
        "{\"row\":17,\"status\":\"failed\",\"name\":\"Aarav Sh\xc4\x81h \xe2\x80\x94 caf\xc3\xa9\","
        "\"error\":\"x\x7f\xc2\x9b\xe2\x80\xae y\",\"latency_ms\":412}";
    const int only = argc > 3 ? std::atoi(argv[3]) : -1;
    int index = 0;
    // Runs benchmark `f` unless another one alone was asked for.
    const auto run = [&](auto f) {
        const bool mine = only < 0 || only == index;
        ++index;
        return mine ? best_ns(f) : 0.0;
    };
    const double results[] = {
        run([&] { return util::printable(ascii); }),
        run([&] { return util::printable(mixed); }),
        run([&] { return util::printable(mixed, util::LineBreaks::space); }),
        run([&] { return util::json_safe(json_ascii); }),
        run([&] { return util::json_safe(json_mixed); }),
        run([&] { return report::html_escape(ascii); }),
        run([&] { return report::html_escape(mixed); }),
        run([&] { return std::string_view(ascii).substr(util::find_invalid_utf8(mixed) % 8); }),
    };
    const char* names[] = {"printable ascii", "printable mixed",   "printable mixed space", "json_safe ascii",
                           "json_safe mixed", "html_escape ascii", "html_escape mixed",     "find_invalid_utf8 mixed"};
    for (int i = 0; i < 8; ++i) {
        std::printf("%-22s %8.1f ns/call\n", names[i], results[i]);
    }
    return 0;
}
