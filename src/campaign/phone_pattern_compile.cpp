// The compiling half of DigitPattern: pattern text → a Node tree → a program.

#include <string>

#include "campaign/phone_pattern.hpp"

namespace campaign {

namespace {

constexpr std::uint16_t k_any_digit = 0x3FF;

struct Node {
    enum class Kind { set, end, group, alt, seq };
    Kind kind = Kind::seq;
    std::uint16_t mask = 0;
    int capture = -1;  // group: its number, or -1 for (?:…)
    int min = 1;
    int max = 1;
    std::vector<Node> kids;
};

}  // namespace

// Recursive descent into a Node tree, then code for a backtracking machine (after Russ
// Cox's "Regular Expression Matching: the Virtual Machine Approach").
class DigitPattern::Compiler {
public:
    explicit Compiler(std::string_view text) : m_text(text) {}

    std::optional<DigitPattern> compile() {
        Node root;
        if (!parse_alt(root) || m_pos != m_text.size()) {
            return std::nullopt;
        }
        DigitPattern p;
        p.m_groups = m_groups;
        m_out = &p.m_prog;
        emit(root);
        m_out->push_back(Inst{Op::match});
        return p;
    }

private:
    bool at(char c) const { return m_pos < m_text.size() && m_text[m_pos] == c; }

    bool parse_alt(Node& out) {
        out.kind = Node::Kind::alt;
        for (;;) {
            Node seq;
            if (!parse_seq(seq)) {
                return false;
            }
            out.kids.push_back(std::move(seq));
            if (!at('|')) {
                return true;
            }
            ++m_pos;
        }
    }

    bool parse_seq(Node& out) {
        out.kind = Node::Kind::seq;
        while (m_pos < m_text.size() && !at('|') && !at(')')) {
            Node atom;
            if (!parse_atom(atom) || !parse_quantifier(atom)) {
                return false;
            }
            out.kids.push_back(std::move(atom));
        }
        return true;
    }

    bool parse_atom(Node& out) {
        const char c = m_text[m_pos++];
        if (c >= '0' && c <= '9') {
            out.kind = Node::Kind::set;
            out.mask = static_cast<std::uint16_t>(1u << (c - '0'));
            return true;
        }
        if (c == '\\' && at('d')) {
            ++m_pos;
            out.kind = Node::Kind::set;
            out.mask = k_any_digit;
            return true;
        }
        if (c == '$') {
            out.kind = Node::Kind::end;
            return true;
        }
        if (c == '[') {
            return parse_class(out);
        }
        if (c == '(') {
            out.kind = Node::Kind::group;
            if (m_text.substr(m_pos, 2) == "?:") {
                m_pos += 2;
            } else if (m_groups < k_max_groups) {
                out.capture = ++m_groups;
            } else {
                return false;
            }
            out.kids.emplace_back();
            if (!parse_alt(out.kids.back()) || !at(')')) {
                return false;
            }
            ++m_pos;
            return true;
        }
        return false;
    }

    bool parse_class(Node& out) {
        out.kind = Node::Kind::set;
        while (m_pos < m_text.size() && !at(']')) {
            const char c = m_text[m_pos++];
            if (c == '\\' && at('d')) {
                ++m_pos;
                out.mask |= k_any_digit;
                continue;
            }
            if (c < '0' || c > '9') {
                return false;
            }
            char last = c;
            if (at('-') && m_pos + 1 < m_text.size() && m_text[m_pos + 1] != ']') {
                last = m_text[m_pos + 1];
                m_pos += 2;
                if (last < c || last > '9') {
                    return false;
                }
            }
            for (char d = c; d <= last; ++d) {
                out.mask |= static_cast<std::uint16_t>(1u << (d - '0'));
            }
        }
        if (!at(']') || out.mask == 0) {
            return false;
        }
        ++m_pos;
        return true;
    }

    bool parse_number(int& out) {
        const std::size_t start = m_pos;
        out = 0;
        while (m_pos < m_text.size() && m_text[m_pos] >= '0' && m_text[m_pos] <= '9' && m_pos - start < 3) {
            out = out * 10 + (m_text[m_pos++] - '0');
        }
        return m_pos > start;
    }

    bool parse_quantifier(Node& atom) {
        if (at('?')) {
            ++m_pos;
            atom.min = 0;
        } else if (at('{')) {
            ++m_pos;
            if (!parse_number(atom.min)) {
                return false;
            }
            atom.max = atom.min;
            if (at(',')) {
                ++m_pos;
                if (!parse_number(atom.max) || atom.max < atom.min) {
                    return false;  // {n,} is not needed by the metadata
                }
            }
            if (!at('}')) {
                return false;
            }
            ++m_pos;
        } else {
            return true;
        }
        // Lazy, possessive or stacked quantifiers are not needed either.
        return !(at('?') || at('+') || at('*') || at('{'));
    }

    int add(Inst inst) {
        m_out->push_back(inst);
        return static_cast<int>(m_out->size()) - 1;
    }
    int here() const { return static_cast<int>(m_out->size()); }

    void emit(const Node& node) {
        for (int i = 0; i < node.min; ++i) {
            emit_once(node);
        }
        // x{0,k} as nested optionals, greedy: each further copy is preferred to stopping.
        std::vector<int> splits;
        for (int i = node.min; i < node.max; ++i) {
            const int split = add(Inst{Op::split});
            (*m_out)[split].x = here();
            splits.push_back(split);
            emit_once(node);
        }
        for (const int split : splits) {
            (*m_out)[split].y = here();
        }
    }

    void emit_once(const Node& node) {
        switch (node.kind) {
        case Node::Kind::set: add(Inst{Op::set, node.mask}); break;
        case Node::Kind::end: add(Inst{Op::end_of_input}); break;
        case Node::Kind::group:
            if (node.capture >= 0) {
                add(Inst{Op::save, 0, 2 * node.capture});
            }
            emit(node.kids.front());
            if (node.capture >= 0) {
                add(Inst{Op::save, 0, 2 * node.capture + 1});
            }
            break;
        case Node::Kind::alt: {
            std::vector<int> jumps;
            for (std::size_t i = 0; i + 1 < node.kids.size(); ++i) {
                const int split = add(Inst{Op::split});
                (*m_out)[split].x = here();
                emit(node.kids[i]);
                jumps.push_back(add(Inst{Op::jump}));
                (*m_out)[split].y = here();
            }
            emit(node.kids.back());
            for (const int jump : jumps) {
                (*m_out)[jump].x = here();
            }
            break;
        }
        case Node::Kind::seq:
            for (const auto& kid : node.kids) {
                emit(kid);
            }
            break;
        }
    }

    std::string_view m_text;
    std::size_t m_pos = 0;
    int m_groups = 0;
    std::vector<Inst>* m_out = nullptr;
};

std::optional<DigitPattern> DigitPattern::compile(std::string_view pattern) {
    return Compiler(pattern).compile();
}

}  // namespace campaign
