#include "hostile_corpus.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <sstream>
#include <stdexcept>

#include "fixtures.hpp"

namespace e2e {

namespace {

// Reads a "…"-quoted text of the manifest starting at `in`'s next character (\" and \\ escape).
std::string quoted_text(std::istream& in) {
    std::string out;
    for (char c = 0; in.get(c) && c != '"';) {
        if (c == '\\') {
            in.get(c);
        }
        out.push_back(c);
    }
    return out;
}

// The standard campaign beside a CSV entry, and the CSV beside a campaign entry. Line numbers
// of expectations.txt depend on them: recipients.file is on line 8, columns on 9, text on 13.
const std::string k_campaign =
    "name: hostile\n"
    "service:\n"
    "  base_url: ${WACAMP_BASE_URL}\n"
    "  api_key: ${WACAMP_API_KEY}\n"
    "  access_token: ${WACAMP_ACCESS_TOKEN}\n"
    "  timeout: 5s\n"
    "recipients:\n"
    "  file: recipients.csv\n"
    "  columns: {wa_id: phone, user_name: name, user_id: user_id}\n"
    "  default_country: IN\n"
    "message:\n"
    "  type: text\n"
    "  text: \"Hi {{name}}\"\n"
    "results: results/hostile.jsonl\n";
// As k_campaign, 13 lines, without the access token (and so line 14 is the first free one).
const std::string k_campaign_13_lines = [] {
    std::string c = k_campaign;
    c.erase(c.find("  access_token"), c.find("  timeout") - c.find("  access_token"));
    return c;
}();

std::string bytes(std::size_t size, unsigned seed) {
    std::mt19937 random(seed);
    std::string out(size, '\0');
    for (auto& c : out) {
        c = static_cast<char>(random() & 0xFF);
    }
    return out;
}

std::string csv_with_row(const std::string& row) {
    return "phone,name,user_id,expect\n+919812300001,Asha,u1,919812300001\n" + row +
           "+919812300003,Mira,u3,919812300003\n";
}

// Entries too big to commit, or that are not plain files. Each writes its folder's
// campaign.yaml, recipients.csv or results.jsonl.
const std::map<std::string, std::function<void(const TempDir&)>>& generators() {
    static const std::map<std::string, std::function<void(const TempDir&)>> all = {
        {"yaml-over-1mib",
         [](const TempDir& d) { d.write("campaign.yaml", k_campaign + "#" + std::string(1 << 20, 'x') + "\n"); }},
        {"yaml-deep-lists",
         [](const TempDir& d) { d.write("campaign.yaml", "name: " + std::string(100'000, '[') + "\n"); }},
        {"yaml-deep-maps",
         [](const TempDir& d) {
             std::string deep;
             for (int i = 0; i < 100'000; ++i) {
                 deep += "{a: ";
             }
             d.write("campaign.yaml", "name: " + deep + "\n");
         }},
        // An explicit key ("? "): a plain one may not be over 1024 characters.
        {"yaml-long-unknown-key",
         [](const TempDir& d) {
             d.write("campaign.yaml", k_campaign_13_lines + "? " + std::string(900'000, 'k') + "\n: 1\n");
         }},
        {"yaml-many-unknown-keys",
         [](const TempDir& d) {
             std::string keys;
             for (int i = 0; i < 20'000; ++i) {
                 keys += fmt::format("k{}: 1\n", i);
             }
             d.write("campaign.yaml", k_campaign_13_lines + keys);
         }},
        {"yaml-utf16",
         [](const TempDir& d) {
             std::string text = "\xFF\xFE";
             for (const char c : k_campaign) {
                 text += std::string{c, '\0'};
             }
             d.write("campaign.yaml", text);
         }},
        {"campaign-is-folder",
         [](const TempDir& d) { std::filesystem::create_directories(d.path() / "campaign.yaml"); }},
        {"campaign-missing", [](const TempDir&) {}},
        {"csv-10mb-header-field",
         [](const TempDir& d) {
             d.write("recipients.csv", "phone,\"" + std::string(10 << 20, 'n') + "\",name\n+919812300001,x,A\n");
         }},
        {"csv-10mb-field-in-a-row",
         [](const TempDir& d) {
             const std::string row = "+919812300002," + std::string(10 << 20, 'R') + ",u2,";
             d.write("recipients.csv", csv_with_row(row + "invalid:longer than 65536 bytes\n"));
         }},
        {"csv-5000-columns",
         [](const TempDir& d) {
             std::string header = "phone,name,user_id";
             for (int i = 4; i <= 5000; ++i) {
                 header += fmt::format(",c{}", i);
             }
             d.write("recipients.csv", header + "\n+919812300001,Asha,u1\n");
         }},
        {"csv-1000-columns",
         [](const TempDir& d) {
             std::string header = "phone,name,user_id";
             std::string padding;
             for (int i = 4; i < 1000; ++i) {
                 header += fmt::format(",c{}", i);
                 padding += fmt::format(",v{}", i);
             }
             std::string csv = header + ",expect\n";
             for (int i = 0; i < 3; ++i) {
                 csv += fmt::format("+{},P{},u{}{},{}\n", numbers_wa_id(i), i, i, padding, numbers_wa_id(i));
             }
             d.write("recipients.csv", csv);
         }},
        {"csv-1mib-garbage", [](const TempDir& d) { d.write("recipients.csv", "\xFF" + bytes(1 << 20, 1)); }},
        {"csv-is-folder", [](const TempDir& d) { std::filesystem::create_directories(d.path() / "recipients.csv"); }},
        // Opening a FIFO waits for a writer: there is none.
        {"csv-fifo",
         [](const TempDir& d) {
             if (mkfifo((d.path() / "recipients.csv").c_str(), 0600) != 0) {
                 throw std::runtime_error("mkfifo failed");
             }
         }},
        {"log-16mib-line",
         [](const TempDir& d) {
             std::string log = read_file(corpus_dir() / "logs" / "torn-last-line.jsonl");
             log = log.substr(0, log.find('\n') + 1) + "{\"event\":\"end\",\"reason\":\"" + std::string(17 << 20, 'x') +
                   "\"}\n" + R"({"event":"end","reason":"completed","at":"2026-01-01T00:00:03Z"})" + "\n";
             d.write("results.jsonl", log);
         }},
    };
    return all;
}

}  // namespace

CorpusKind CorpusEntry::kind() const {
    const std::string_view n = std::string_view(name).substr(name.starts_with("gen/") ? 4 : 0);
    if (n.starts_with("csv")) {
        return CorpusKind::csv;
    }
    return n.starts_with("log") ? CorpusKind::log : CorpusKind::campaign;
}

std::filesystem::path corpus_dir() {
    return std::filesystem::path(WACAMP_SOURCE_DIR) / "tests" / "hostile";
}

std::vector<CorpusEntry> corpus_entries() {
    std::vector<CorpusEntry> entries;
    std::ifstream file(corpus_dir() / "expectations.txt");
    std::string text;
    for (int number = 1; std::getline(file, text); ++number) {
        std::istringstream in(text);
        CorpusEntry e;
        if (!(in >> e.name) || e.name.starts_with("#")) {
            continue;
        }
        e.line = number;
        for (char c = 0; in >> std::ws && in.get(c);) {
            if (c == '"') {
                e.texts.push_back(quoted_text(in));
                continue;
            }
            std::string word(1, c);
            std::string rest;
            in >> rest;
            word += rest;
            const auto eq = word.find('=');
            if (eq == std::string::npos) {
                throw std::runtime_error(fmt::format("expectations.txt:{}: not COMMAND=EXIT: {}", number, word));
            }
            e.commands.emplace_back(word.substr(0, eq), std::stoi(word.substr(eq + 1)));
        }
        entries.push_back(std::move(e));
    }
    return entries;
}

bool is_generated(const std::string& name) {
    return generators().count(name) == 1;
}

void prepare_entry(const CorpusEntry& e, const TempDir& dir) {
    const CorpusKind kind = e.kind();
    if (kind == CorpusKind::campaign) {
        dir.write("recipients.csv", numbers_csv(3));
    } else if (kind == CorpusKind::csv) {
        // Each row of a CSV entry is judged on its own, however many others are invalid
        // (phones.csv is half bad numbers): the share that refuses a list is lifted.
        dir.write("campaign.yaml", k_campaign + "abort: {max_invalid_share: 1}\n");
    }
    if (e.name.starts_with("gen/")) {
        const auto it = generators().find(e.name.substr(4));
        if (it == generators().end()) {
            throw std::runtime_error("no generator for " + e.name);
        }
        it->second(dir);
        return;
    }
    if (!std::filesystem::is_regular_file(corpus_dir() / e.name)) {
        throw std::runtime_error("no file tests/hostile/" + e.name);
    }
    const char* target = kind == CorpusKind::campaign ? "campaign.yaml"
                         : kind == CorpusKind::csv    ? "recipients.csv"
                                                      : "results.jsonl";
    dir.write(target, read_file(corpus_dir() / e.name));
}

}  // namespace e2e
