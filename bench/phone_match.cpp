// Phone validation timed: wacamp's matcher over libphonenumber's metadata (campaign::PhoneRules)
// against libphonenumber itself (its ICU regular expressions) on the same numbers
// (docs/decisions/input.md, phone validation).
//   bench_phone_match [N [ROUNDS]]   (defaults 20000 5)
// Three sets of numbers:
//   list      N Indian mobile numbers as the benchmark lists hold them (bench_make_csv: +91
//             9000000000 + i), read as international digits ("+" and country code)
//   national  the same N without "+91", read as national numbers of IN (a list with
//             `default_country: IN`)
//   world     every supported region's example number of each type libphonenumber has (fixed
//             line, mobile, toll free, premium rate, VoIP, UAN) and of each non-geographic code,
//             read as international digits, the set repeated to N numbers (fewer would be
//             too short to time)
// and for each set the best over ROUNDS of the CPU time a number of:
//   rules      PhoneRules::international, or ::national(digits, "IN") (the matcher; `undecided`
//              answers counted)
//   library    PhoneNumberUtil::Parse("+" digits, "ZZ"), or Parse(digits, "IN"), then
//              IsValidNumber and Format(E164): what the matcher replays, and what
//              PhoneNormalizer falls back on
//   normalize  PhoneNormalizer::normalize of the number as written ("+" digits without a default
//              country; the national digits with default country IN): a row's whole check
// and how many numbers the matcher and libphonenumber answer alike (must be all).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <set>
#include <string>
#include <vector>

#include <phonenumbers/phonenumberutil.h>

#include "campaign/phone.hpp"
#include "campaign/phone_rules.hpp"

namespace {

namespace pn = i18n::phonenumbers;

double cpu_ns() {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) * 1e9 + static_cast<double>(t.tv_nsec);
}

// `region` "ZZ": `digits` start with a country code.
std::string library_answer(const std::string& digits, const std::string& region) {
    const auto& util = *pn::PhoneNumberUtil::GetInstance();
    pn::PhoneNumber number;
    if (util.Parse(region == "ZZ" ? "+" + digits : digits, region, &number) != pn::PhoneNumberUtil::NO_PARSING_ERROR ||
        !util.IsValidNumber(number)) {
        return {};
    }
    std::string e164;
    util.Format(number, pn::PhoneNumberUtil::E164, &e164);
    return e164.substr(1);
}

std::vector<std::string> list_numbers(int n, const std::string& prefix) {
    std::vector<std::string> out;
    for (long long i = 0; i < n; ++i) {
        out.push_back(prefix + std::to_string(9000000000LL + i));
    }
    return out;
}

std::vector<std::string> world_numbers() {
    const auto& util = *pn::PhoneNumberUtil::GetInstance();
    std::vector<std::string> out;
    std::set<std::string> regions;
    util.GetSupportedRegions(&regions);
    const pn::PhoneNumberUtil::PhoneNumberType types[] = {
        pn::PhoneNumberUtil::FIXED_LINE,   pn::PhoneNumberUtil::MOBILE, pn::PhoneNumberUtil::TOLL_FREE,
        pn::PhoneNumberUtil::PREMIUM_RATE, pn::PhoneNumberUtil::VOIP,   pn::PhoneNumberUtil::UAN};
    const auto add = [&](const pn::PhoneNumber& example) {
        std::string nsn;
        util.GetNationalSignificantNumber(example, &nsn);
        out.push_back(std::to_string(example.country_code()) + nsn);
    };
    for (const auto& region : regions) {
        for (const auto type : types) {
            pn::PhoneNumber example;
            if (util.GetExampleNumberForType(region, type, &example)) {
                add(example);
            }
        }
    }
    std::set<int> codes;
    util.GetSupportedGlobalNetworkCallingCodes(&codes);
    for (const int code : codes) {
        pn::PhoneNumber example;
        if (util.GetExampleNumberForNonGeoEntity(code, &example)) {
            add(example);
        }
    }
    return out;
}

// The best over `rounds` of the CPU time of `f` a number, in ns.
template <typename F>
double best_ns(const std::vector<std::string>& numbers, int rounds, F f) {
    double best = 1e300;
    for (int round = 0; round < rounds; ++round) {
        const double start = cpu_ns();
        for (const std::string& digits : numbers) {
            f(digits);
        }
        best = std::min(best, (cpu_ns() - start) / static_cast<double>(numbers.size()));
    }
    return best;
}

volatile std::size_t g_sink = 0;

// `region` "ZZ": `numbers` are international digits; else national numbers of `region`.
void measure(const char* name, const std::vector<std::string>& numbers, const std::string& region, int rounds,
             const campaign::PhoneNormalizer& normalizer) {
    const campaign::PhoneRules& rules = *campaign::PhoneRules::shared();
    const bool international = region == "ZZ";
    const auto ours = [&](const std::string& d) {
        return international ? rules.international(d) : rules.national(d, region);
    };
    std::size_t undecided = 0;
    std::size_t alike = 0;
    std::size_t valid = 0;
    std::vector<std::string> written;
    for (const std::string& digits : numbers) {
        const auto answer = ours(digits);
        const std::string library = library_answer(digits, region);
        undecided += answer.verdict == campaign::PhoneRules::Verdict::undecided ? 1 : 0;
        alike += answer.verdict != campaign::PhoneRules::Verdict::undecided && answer.wa_id == library ? 1 : 0;
        valid += library.empty() ? 0 : 1;
        written.push_back(international ? "+" + digits : digits);
    }
    const double t_rules =
        best_ns(numbers, rounds, [&](const std::string& d) { g_sink = g_sink + ours(d).wa_id.size(); });
    const double t_library =
        best_ns(numbers, rounds, [&](const std::string& d) { g_sink = g_sink + library_answer(d, region).size(); });
    const double t_normalize = best_ns(written, rounds, [&](const std::string& raw) {
        const auto wa_id = normalizer.normalize(raw);
        g_sink = g_sink + (wa_id ? wa_id->size() : 0);
    });
    std::printf("%-8s %6zu numbers (%zu valid), matcher and library alike on %zu, undecided %zu\n", name,
                numbers.size(), valid, alike, undecided);
    std::printf("         rules %7.2f µs   library %7.2f µs (%.1fx rules)   normalize %7.2f µs\n", t_rules / 1000,
                t_library / 1000, t_library / t_rules, t_normalize / 1000);
}

}  // namespace

int main(int argc, char** argv) {
    const int n = argc > 1 ? std::max(1, std::atoi(argv[1])) : 20000;
    const int rounds = argc > 2 ? std::max(1, std::atoi(argv[2])) : 5;
    auto normalizer = campaign::PhoneNormalizer::create("");  // also silences libphonenumber's log
    auto normalizer_in = campaign::PhoneNormalizer::create("IN");
    if (!normalizer || !normalizer_in || campaign::PhoneRules::shared() == nullptr) {
        std::fprintf(stderr, "bench_phone_match: libphonenumber's metadata could not be read\n");
        return 1;
    }
    std::printf("best of %d rounds, CPU time a number\n", rounds);
    measure("list", list_numbers(n, "91"), "ZZ", rounds, *normalizer);
    measure("national", list_numbers(n, ""), "IN", rounds, *normalizer_in);
    const std::vector<std::string> world = world_numbers();
    std::vector<std::string> repeated;
    while (repeated.size() < static_cast<std::size_t>(n)) {
        repeated.insert(repeated.end(), world.begin(), world.end());
    }
    std::printf("world: %zu distinct numbers, repeated\n", world.size());
    measure("world", repeated, "ZZ", rounds, *normalizer);
    return 0;
}
