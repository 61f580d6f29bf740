// The matching half of DigitPattern: a backtracking machine with a step budget.

#include "campaign/phone_pattern.hpp"

namespace campaign {

namespace {

constexpr long k_step_budget = 200'000;  // far above any real pattern; guards the rest

}  // namespace

struct DigitPattern::Run {
    std::string_view in;
    std::array<int, 2 * (k_max_groups + 1)> caps{};
    long steps = 0;
    bool exhausted = false;
    bool full = false;  // the match must end at the end of the input
    std::size_t end = 0;
};

bool DigitPattern::run(int pc, std::size_t pos, Run& r) const {
    for (;;) {
        if (++r.steps > k_step_budget) {
            r.exhausted = true;
            return false;
        }
        const Inst& inst = m_prog[static_cast<std::size_t>(pc)];
        switch (inst.op) {
        case Op::set: {
            const unsigned d = pos < r.in.size() ? static_cast<unsigned>(r.in[pos] - '0') : 10u;
            if (d > 9 || ((inst.mask >> d) & 1u) == 0) {
                return false;
            }
            ++pos;
            ++pc;
            break;
        }
        case Op::split:
            if (run(inst.x, pos, r)) {
                return true;
            }
            if (r.exhausted) {
                return false;
            }
            pc = inst.y;
            break;
        case Op::jump: pc = inst.x; break;
        case Op::save: {
            const int old = r.caps[static_cast<std::size_t>(inst.x)];
            r.caps[static_cast<std::size_t>(inst.x)] = static_cast<int>(pos);
            if (run(pc + 1, pos, r)) {
                return true;
            }
            r.caps[static_cast<std::size_t>(inst.x)] = old;
            return false;
        }
        case Op::end_of_input:
            if (pos != r.in.size()) {
                return false;
            }
            ++pc;
            break;
        case Op::match:
            if (r.full && pos != r.in.size()) {
                return false;
            }
            r.end = pos;
            return true;
        }
    }
}

DigitPattern::Outcome DigitPattern::full_match(std::string_view digits) const {
    Run r;
    r.in = digits;
    r.full = true;
    if (run(0, 0, r)) {
        return Outcome::yes;
    }
    return r.exhausted ? Outcome::too_complex : Outcome::no;
}

DigitPattern::Prefix DigitPattern::match_prefix(std::string_view digits) const {
    Run r;
    r.in = digits;
    r.caps.fill(-1);
    Prefix out;
    if (!run(0, 0, r)) {
        out.outcome = r.exhausted ? Outcome::too_complex : Outcome::no;
        return out;
    }
    out.outcome = Outcome::yes;
    out.end = r.end;
    out.groups[0] = digits.substr(0, r.end);
    for (int g = 1; g <= m_groups; ++g) {
        const int begin = r.caps[static_cast<std::size_t>(2 * g)];
        const int end = r.caps[static_cast<std::size_t>(2 * g + 1)];
        if (begin >= 0 && end >= begin) {
            out.groups[static_cast<std::size_t>(g)] =
                digits.substr(static_cast<std::size_t>(begin), static_cast<std::size_t>(end - begin));
        }
    }
    return out;
}

}  // namespace campaign
