#include "campaign/campaign_file_yaml.hpp"

#include <fmt/format.h>
#include <algorithm>

#include "util/env.hpp"

namespace campaign::detail {

namespace {

int line_of_node(const YAML::Node& node, int fallback) {
    const YAML::Mark mark = node.Mark();
    return mark.line >= 0 ? mark.line + 1 : fallback;
}

// What a value is, for "expected …, got …" messages.
std::string describe(const YAML::Node& value) {
    switch (value.Type()) {
    case YAML::NodeType::Map: return "a mapping";
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Scalar: return in_quotes(value.Scalar());
    default: return "nothing";
    }
}

struct Found {
    YAML::Node value;
    int line = 0;      // of the key
    int position = 0;  // of the key in the file, to give back file order
};
using Entries = std::map<std::string, Found, std::less<>>;

void collect(LoadContext& ctx, const YAML::Node& map, const std::string& path, int line, Entries& out);

// Adds the keys of the `<<` value `source` that `out` does not have yet: explicit keys win.
void merge_into(LoadContext& ctx, const YAML::Node& source, const std::string& path, int line, Entries& out) {
    std::vector<YAML::Node> maps;
    if (source.IsMap()) {
        maps.push_back(source);
    } else if (source.IsSequence()) {
        for (const auto& item : source) {
            maps.push_back(item);
        }
    }
    if (maps.empty()) {
        ctx.problem(line, fmt::format("{}<<: expected a mapping or a list of mappings to merge",
                                      path.empty() ? "" : path + "."));
        return;
    }
    for (const auto& map : maps) {
        // Aliases share nodes, but each merge copies keys: nested merges could multiply work
        // (and recursion), so their number is bounded.
        if (--ctx.merges_left < 0) {
            if (ctx.merges_left == -1) {
                ctx.problem(line, "too many merge keys (<<) expanded; is an anchor merged into itself many times?");
            }
            return;
        }
        if (!map.IsMap()) {
            ctx.problem(line_of_node(map, line), fmt::format("{}<<: expected a mapping to merge, got {}",
                                                             path.empty() ? "" : path + ".", describe(map)));
            continue;
        }
        Entries merged;
        collect(ctx, map, path, line, merged);
        out.merge(merged);  // leaves keys already present in `out` alone
    }
}

void collect(LoadContext& ctx, const YAML::Node& map, const std::string& path, int line, Entries& out) {
    std::vector<std::pair<YAML::Node, int>> merges;
    for (auto it = map.begin(); it != map.end(); ++it) {
        const int key_line = line_of_node(it->first, line);
        if (!it->first.IsScalar()) {
            ctx.problem(key_line, fmt::format("{}: a key must be a plain name, got {}",
                                              path.empty() ? "top level" : path, describe(it->first)));
            continue;
        }
        const std::string& name = it->first.Scalar();
        // A quoted "<<" is an ordinary key; only the plain one merges.
        if (name == "<<" && it->first.Tag() != "!") {
            merges.emplace_back(it->second, key_line);
            continue;
        }
        auto [pos, inserted] = out.try_emplace(name, Found{it->second, key_line, it->first.Mark().pos});
        if (!inserted) {
            ctx.problem(key_line, fmt::format("duplicate key {} (first on line {})",
                                              in_quotes(path.empty() ? name : path + "." + name), pos->second.line));
        }
    }
    for (const auto& [source, merge_line] : merges) {
        merge_into(ctx, source, path, merge_line, out);
    }
}

}  // namespace

void LoadContext::hide(std::string_view raw, const std::string& value) {
    secrets.add(value);
    // The variables too: "Bearer ${TOKEN}" must not leak TOKEN where another key uses it.
    for (auto& name : util::variables_in(raw)) {
        if (auto variable = env.get(name)) {
            secrets.add(*variable);
        }
        secret_variables.insert(std::move(name));
    }
}

Section::Section(LoadContext& ctx, const YAML::Node& node, std::string path, int line,
                 std::span<const std::string_view> known)
    : m_ctx(&ctx), m_path(std::move(path)), m_line(line) {
    Entries entries;
    collect(ctx, node, m_path, line, entries);
    for (auto& [name, entry] : entries) {
        const std::string full = path_of(name);
        const bool is_known = std::find(known.begin(), known.end(), name) != known.end();
        if (!is_known) {
            // Top-level "x-…" keys hold anchors for reuse, as in Compose files.
            if (!(m_path.empty() && name.starts_with("x-"))) {
                ctx.problem(entry.line, with_suggestion(fmt::format("unknown key {}", in_quotes(full)), name, known));
            }
            continue;
        }
        ctx.lines[full] = entry.line;
        m_entries.emplace(name, Entry{entry.value, entry.line});
    }
}

bool Section::has(std::string_view key) const {
    auto it = m_entries.find(key);
    return it != m_entries.end() && !it->second.value.IsNull();
}

int Section::line_of(std::string_view key) const {
    auto it = m_entries.find(key);
    return it == m_entries.end() ? m_line : it->second.line;
}

std::string Section::path_of(std::string_view key) const {
    return m_path.empty() ? std::string(key) : m_path + "." + std::string(key);
}

void Section::problem(std::string_view key, const std::string& message) const {
    m_ctx->problem(line_of(key), path_of(key) + ": " + message);
}

void Section::missing(std::string_view key) const {
    m_ctx->problem(m_line, "missing required key " + in_quotes(path_of(key)));
}

const Section::Entry* Section::find(std::string_view key, Need need) const {
    auto it = m_entries.find(key);
    if (it == m_entries.end()) {
        if (need == Need::required) {
            missing(key);
        }
        return nullptr;
    }
    if (it->second.value.IsNull()) {
        if (need == Need::required) {
            problem(key, "a value is required");
        }
        return nullptr;
    }
    return &it->second;
}

std::optional<std::string> Section::scalar(const YAML::Node& value, const std::string& path, int line,
                                           std::string_view expected) const {
    if (!value.IsScalar()) {
        m_ctx->problem(line, fmt::format("{}: expected {}, got {}", path, expected, describe(value)));
        return std::nullopt;
    }
    for (auto& name : util::variables_in(value.Scalar())) {
        m_ctx->references.push_back(LoadContext::Reference{path, line, std::move(name)});
    }
    auto text = util::interpolate(value.Scalar(), m_ctx->env);
    if (!text) {
        m_ctx->problem(line, path + ": " + text.error().message);
        return std::nullopt;
    }
    return std::move(text).value();
}

std::optional<std::string> Section::text(std::string_view key, Need need) const {
    return text_as(key, need, "a string");
}

std::optional<std::string> Section::written(std::string_view key) const {
    const Entry* entry = find(key, Need::optional);
    if (entry == nullptr || !entry->value.IsScalar()) {
        return std::nullopt;
    }
    return entry->value.Scalar();
}

std::optional<std::string> Section::text_as(std::string_view key, Need need, std::string_view expected) const {
    const Entry* entry = find(key, need);
    if (entry == nullptr) {
        return std::nullopt;
    }
    auto value = scalar(entry->value, path_of(key), entry->line, expected);
    if (value && value->empty() && need == Need::required) {
        problem(key, "must not be empty");
        return std::nullopt;
    }
    return value;
}

std::optional<std::string> Section::secret(std::string_view key, Need need, SecretsPolicy policy) const {
    const Entry* entry = find(key, need);
    if (entry == nullptr) {
        return std::nullopt;
    }
    if (!entry->value.IsScalar()) {
        problem(key, "expected a string, got " + describe(entry->value));
        return std::nullopt;
    }
    auto value = util::interpolate(entry->value.Scalar(), m_ctx->env);
    m_ctx->hide(entry->value.Scalar(), value ? *value : std::string());
    if (!value) {
        // Only the "not set" message is safe to repeat: it names the variable, not a value.
        const bool unset = value.error().message.starts_with("environment variable ");
        if (unset && policy == SecretsPolicy::optional) {
            return std::string();
        }
        problem(key, unset ? value.error().message : "malformed ${NAME} reference");
        return std::nullopt;
    }
    if (value->find_first_of(std::string_view("\r\n\0", 3)) != std::string::npos) {
        problem(key, "contains a line break or NUL character");
        return std::nullopt;
    }
    if (value->empty() && need == Need::required && policy == SecretsPolicy::required) {
        problem(key, "must not be empty");
        return std::nullopt;
    }
    return std::move(value).value();
}

std::optional<Section> Section::section(std::string_view key, Need need,
                                        std::span<const std::string_view> known) const {
    const Entry* entry = find(key, need);
    if (entry == nullptr) {
        return std::nullopt;
    }
    if (!entry->value.IsMap()) {
        problem(key, "expected a mapping, got " + describe(entry->value));
        return std::nullopt;
    }
    return Section(*m_ctx, entry->value, path_of(key), entry->line, known);
}

template <typename Visit>
std::optional<bool> Section::each_item(std::string_view key, Visit&& visit) const {
    const Entry* entry = find(key, Need::optional);
    if (entry == nullptr) {
        return std::nullopt;
    }
    if (!entry->value.IsSequence()) {
        problem(key, "expected a list, got " + describe(entry->value));
        return std::nullopt;
    }
    bool all_good = true;
    size_t index = 0;
    for (const auto& item : entry->value) {
        const int line = line_of_node(item, entry->line);
        all_good = visit(item, fmt::format("{}[{}]", path_of(key), index++), line) && all_good;
    }
    return all_good;
}

std::optional<std::vector<Section>> Section::sections(std::string_view key,
                                                      std::span<const std::string_view> known) const {
    std::vector<Section> items;
    const auto all_good = each_item(key, [&](const YAML::Node& item, const std::string& path, int line) {
        if (!item.IsMap()) {
            m_ctx->problem(line, fmt::format("{}: expected a mapping, got {}", path, describe(item)));
            return false;
        }
        items.emplace_back(*m_ctx, item, path, line, known);
        return true;
    });
    return all_good && *all_good ? std::optional(std::move(items)) : std::nullopt;
}

bool Section::holds_list(std::string_view key) const {
    const auto it = m_entries.find(key);
    return it != m_entries.end() && it->second.value.IsSequence();
}

std::optional<std::vector<Scalar>> Section::list(std::string_view key) const {
    std::vector<Scalar> items;
    const auto all_good = each_item(key, [&](const YAML::Node& item, const std::string& path, int line) {
        auto value = scalar(item, path, line, "a string");
        if (value) {
            items.push_back(Scalar{std::move(*value), line, item.Scalar()});
        }
        return value.has_value();
    });
    return all_good && *all_good ? std::optional(std::move(items)) : std::nullopt;
}

std::optional<std::vector<std::pair<Scalar, Scalar>>> Section::string_map(std::string_view key) const {
    const Entry* entry = find(key, Need::optional);
    if (entry == nullptr) {
        return std::nullopt;
    }
    if (!entry->value.IsMap()) {
        problem(key, "expected a mapping, got " + describe(entry->value));
        return std::nullopt;
    }
    Entries entries;
    collect(*m_ctx, entry->value, path_of(key), entry->line, entries);
    std::vector<std::pair<std::string, const Found*>> ordered;
    for (const auto& [name, found] : entries) {
        ordered.emplace_back(name, &found);
    }
    // Back to file order: the map sorted them by name.
    std::sort(ordered.begin(), ordered.end(),
              [](const auto& a, const auto& b) { return a.second->position < b.second->position; });
    std::vector<std::pair<Scalar, Scalar>> pairs;
    for (const auto& [name, found] : ordered) {
        const std::string full = path_of(key) + "." + name;
        m_ctx->lines[full] = found->line;
        if (auto text_value = scalar(found->value, full, found->line, "a string")) {
            pairs.emplace_back(Scalar{name, found->line, name},
                               Scalar{std::move(*text_value), found->line, found->value.Scalar()});
        }
    }
    return pairs;
}

}  // namespace campaign::detail
