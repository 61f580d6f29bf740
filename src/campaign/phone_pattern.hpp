#pragma once
// A small backtracking matcher for the regular expressions in libphonenumber's metadata,
// over strings of ASCII digits. libphonenumber runs them through ICU, which costs tens of
// microseconds a number; this keeps ICU's (Perl's) match priority, so prefix matches and
// captured groups come out the same. Internal to campaign/phone.cpp.

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace campaign {

class DigitPattern {
public:
    static constexpr int k_max_groups = 3;

    // Compiles `pattern`; nothing when it uses syntax beyond what the metadata needs
    // (digits, [classes], \d, groups, |, ?, {n}, {n,m} and $).
    static std::optional<DigitPattern> compile(std::string_view pattern);

    enum class Outcome { no, yes, too_complex };  // too_complex: the step budget ran out

    // Whether the whole of `digits` matches (ICU matches()).
    Outcome full_match(std::string_view digits) const;

    struct Prefix {
        Outcome outcome = Outcome::no;
        std::size_t end = 0;                                      // length of the match
        std::array<std::string_view, k_max_groups + 1> groups{};  // [0] whole match; unset: empty
    };
    // The match at the start of `digits` that ICU's lookingAt() would find.
    Prefix match_prefix(std::string_view digits) const;

    int group_count() const { return m_groups; }

private:
    enum class Op : std::uint8_t { set, split, jump, save, end_of_input, match };
    struct Inst {
        Op op;
        std::uint16_t mask = 0;  // set: bit d for digit d
        int x = 0;               // split: preferred branch; jump: target; save: slot
        int y = 0;               // split: other branch
    };
    struct Run;
    class Compiler;

    bool run(int pc, std::size_t pos, Run& r) const;

    std::vector<Inst> m_prog;
    int m_groups = 0;
};

}  // namespace campaign
