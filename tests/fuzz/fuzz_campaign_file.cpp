// libFuzzer harness: campaign::load_campaign over arbitrary bytes. The loader reads a path,
// so each input is written to a file in a private folder (in /dev/shm when there is one) that
// also holds a small recipients.csv, so that inputs naming it get past the file checks.
// Besides "no crash, no UB, no leak, no hang", a failure must be a message whose every line
// starts with "FILE:" and holds no control character (values are echoed, and an echoed
// newline or escape sequence would forge or garble the output).

#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>

#include "campaign/campaign_file.hpp"
#include "scratch.hpp"

namespace {

void write_file(const std::filesystem::path& path, const std::uint8_t* data, std::size_t size) {
    std::FILE* file = std::fopen(path.c_str(), "wb");
    if (file == nullptr || (size > 0 && std::fwrite(data, 1, size, file) != size)) {
        __builtin_trap();  // the harness's own folder must be writable
    }
    std::fclose(file);
}

// The private folder, removed when the fuzzer exits normally.
class Workspace {
public:
    Workspace() {
        m_dir = scratch_base() / ("wacamp-fuzz-campaign-" + std::to_string(::getpid()));
        std::filesystem::create_directories(m_dir);
        const std::string_view csv = "phone,name,user_id\n+919812300001,Asha,u1\n";
        write_file(m_dir / "recipients.csv", reinterpret_cast<const std::uint8_t*>(csv.data()), csv.size());
        m_campaign = (m_dir / "campaign.yaml").string();
    }
    ~Workspace() {
        std::error_code ec;
        std::filesystem::remove_all(m_dir, ec);
    }
    Workspace(const Workspace&) = delete;
    Workspace& operator=(const Workspace&) = delete;
    const std::string& campaign() const { return m_campaign; }

private:
    std::filesystem::path m_dir;
    std::string m_campaign;
};

void check_message(const std::string& message, const std::string& file) {
    if (message.empty()) {
        __builtin_trap();
    }
    std::size_t start = 0;
    while (start <= message.size()) {
        const std::size_t end = std::min(message.find('\n', start), message.size());
        const std::string_view line(message.data() + start, end - start);
        if (!line.starts_with(file + ":")) {
            __builtin_trap();  // a line that does not say where: an echoed line break?
        }
        for (const char c : line) {
            if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) {
                __builtin_trap();  // a raw control character in a message
            }
        }
        start = end + 1;
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const Workspace ws;
    write_file(ws.campaign(), data, size);
    const util::MapEnvironment env({{"WACAMP_BASE_URL", "http://127.0.0.1:9"},
                                    {"WACAMP_API_KEY", "fuzz-key"},
                                    {"WACAMP_ACCESS_TOKEN", "fuzz-token"},
                                    {"HOME", "/nonexistent"}});
    for (const auto policy : {campaign::SecretsPolicy::required, campaign::SecretsPolicy::optional}) {
        auto loaded = campaign::load_campaign(ws.campaign(), env, campaign::LoadOptions{policy});
        if (!loaded) {
            check_message(loaded.error().message, ws.campaign());
        } else if (loaded->name.empty() || loaded->results.empty() || loaded->recipients.file.empty()) {
            __builtin_trap();  // a campaign that loads has what every run needs
        }
    }
    return 0;
}
