#pragma once
// Internal to the campaign file loader: strict reading of YAML mappings. Every problem is
// collected as "FILE:LINE: …" instead of stopping at the first, so a user fixes them in one go.

#include <yaml-cpp/yaml.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "campaign/campaign_file.hpp"
#include "util/redact.hpp"

namespace campaign::detail {

enum class Need { optional, required };

// A scalar read from the file (after `${ENV}` interpolation) and the line it sits on.
struct Scalar {
    std::string text;
    int line = 0;
    std::string raw;  // as written, before interpolation
};

// What one load shares: the file's name and folder, the environment, the problems found.
struct LoadContext {
    std::string file;           // as the user gave it, for messages
    std::filesystem::path dir;  // the campaign file's folder, for relative paths
    const util::Environment& env;
    LoadOptions options;
    std::map<std::string, int>& lines;  // Campaign::lines, filled as keys are seen
    std::vector<std::pair<int, std::string>> problems;
    util::Redactor secrets;  // values never to show, even where another key echoes them
    // The variables whose values are secrets (those the secret keys name); no message may name them.
    std::set<std::string> secret_variables;
    // Every `${NAME}` a scalar named: the key, its line, the variable.
    struct Reference {
        std::string key;
        int line = 0;
        std::string variable;
    };
    std::vector<Reference> references;
    int merges_left = 1000;  // merge keys expanded; bounds "billion laughs" via `<<`

    // Records `message` as found on 1-based `line`.
    void problem(int line, std::string message) { problems.emplace_back(line, std::move(message)); }
    // Keeps `value` and the values of the variables `raw` names out of every message; those
    // variables become secret_variables.
    void hide(std::string_view raw, const std::string& value);
    // Resolves `path` against the campaign file's folder.
    std::string resolve(const std::string& path) const { return (dir / path).lexically_normal().string(); }
};

struct DurationRange {
    std::chrono::milliseconds min;
    std::chrono::milliseconds max;
    std::string_view text;  // "between 1s and 10m", for the message
};

// One YAML mapping found at a dotted path. Construction reports duplicate keys and keys that
// are not in `known` (suggesting the nearest known one); merge keys (`<<`) are expanded.
class Section {
public:
    Section(LoadContext& ctx, const YAML::Node& node, std::string path, int line,
            std::span<const std::string_view> known);

    bool has(std::string_view key) const;     // present and not null
    int line_of(std::string_view key) const;  // the key's line, else the section's
    std::string path_of(std::string_view key) const;
    LoadContext& context() const { return *m_ctx; }
    // Reports "PATH.KEY: `message`" on the key's line.
    void problem(std::string_view key, const std::string& message) const;
    // Reports that required `key` is absent.
    void missing(std::string_view key) const;

    // Each reader returns nothing when the key is absent or null (reporting it when `need` is
    // required) or when the value is wrong (reported).
    std::optional<std::string> text(std::string_view key, Need need = Need::optional) const;
    // The scalar as written, its ${NAME}s not replaced; nothing when absent or not a scalar
    // (reports nothing: a reader that follows says what is wrong).
    std::optional<std::string> written(std::string_view key) const;
    // A secret: never echoed. Under SecretsPolicy::optional an unset variable or an empty
    // value is no problem (the value is then empty).
    std::optional<std::string> secret(std::string_view key, Need need, SecretsPolicy policy) const;
    std::optional<double> positive_number(std::string_view key, double max) const;
    // A number from 0 to 1 (a share).
    std::optional<double> fraction(std::string_view key) const;
    std::optional<long long> integer(std::string_view key, long long min, long long max) const;
    std::optional<bool> boolean(std::string_view key) const;
    std::optional<std::chrono::milliseconds> duration(std::string_view key, const DurationRange& range) const;
    // Returns the index in `names` of the value.
    std::optional<size_t> choice(std::string_view key, std::span<const std::string_view> names,
                                 Need need = Need::optional) const;
    std::optional<Section> section(std::string_view key, Need need, std::span<const std::string_view> known) const;
    // A list of scalars.
    std::optional<std::vector<Scalar>> list(std::string_view key) const;
    // A list of mappings, each read as a Section at "PATH.KEY[i]".
    std::optional<std::vector<Section>> sections(std::string_view key, std::span<const std::string_view> known) const;
    // Whether `key` holds a list (a sequence), not a mapping or a scalar.
    bool holds_list(std::string_view key) const;
    // A mapping of free-form names to scalars, in file order.
    std::optional<std::vector<std::pair<Scalar, Scalar>>> string_map(std::string_view key) const;

private:
    struct Entry {
        YAML::Node value;
        int line = 0;
    };
    const Entry* find(std::string_view key, Need need) const;
    // Calls `visit(item, "PATH.KEY[i]", line)` for each item of the list at `key` (it returns
    // whether the item was good): nothing when absent or not a list (reported), else whether
    // every item was good.
    template <typename Visit>
    std::optional<bool> each_item(std::string_view key, Visit&& visit) const;
    std::optional<std::string> text_as(std::string_view key, Need need, std::string_view expected) const;
    std::optional<std::string> scalar(const YAML::Node& value, const std::string& path, int line,
                                      std::string_view expected) const;

    LoadContext* m_ctx;
    std::string m_path;
    int m_line;
    std::map<std::string, Entry, std::less<>> m_entries;
};

// Returns the index in `names` of `item`, or reports "`path`: expected a or b, got …".
std::optional<size_t> pick(LoadContext& ctx, const Scalar& item, const std::string& path,
                           std::span<const std::string_view> names);

// Returns `message` with " (did you mean …?)" when one of `names` is close to `word`.
std::string with_suggestion(std::string message, std::string_view word, std::span<const std::string_view> names);

// Returns `text` quoted for a message, cut short when long.
std::string in_quotes(std::string_view text);

}  // namespace campaign::detail
