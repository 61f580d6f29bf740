// `report --format html` opened in headless Chromium (Debian's package, installed by
// scripts/setup.sh): the page must parse into the elements we wrote, render to a screenshot,
// and make the browser log nothing (a blocked fetch or a script error would be logged).
#include <doctest/doctest.h>

#include <sys/wait.h>
#include <cstdlib>

#include "fixtures.hpp"

using namespace e2e;

namespace {

const std::string k_chromium = "/usr/bin/chromium";

struct Rendered {
    int exit_code = -1;
    std::string dom;  // the document after parsing, as --dump-dom serialises it
    std::string log;  // Chromium's own log on stderr, console messages included
    std::string png;  // the screenshot's bytes
};

// Opens `page` in a fresh headless Chromium profile inside `dir`; nothing outside `dir` is
// written (HOME points there too) and nothing leaves the machine.
Rendered render(const std::filesystem::path& page, const TempDir& dir) {
    const auto home = dir.path() / "chromium-home";
    const auto shot = dir.path() / "report.png";
    const std::string command = "env HOME='" + home.string() + "' timeout 60 " + k_chromium +
                                " --headless --no-sandbox --disable-gpu --disable-quic --no-first-run"
                                " --disable-background-networking --disable-component-update --disable-sync"
                                " --user-data-dir='" +
                                (home / "profile").string() +
                                "'"
                                " --enable-logging=stderr --v=0 --window-size=1280,2000"
                                " --screenshot='" +
                                shot.string() + "' --dump-dom 'file://" + page.string() +
                                "'"
                                " > '" +
                                (dir.path() / "dom.html").string() + "' 2> '" + (dir.path() / "chromium.log").string() +
                                "' < /dev/null";
    Rendered r;
    const int status = std::system(command.c_str());
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.dom = read_file(dir.path() / "dom.html");
    r.log = read_file(dir.path() / "chromium.log");
    r.png = read_file(shot);
    return r;
}

}  // namespace

TEST_SUITE("e2e: html") {
    TEST_CASE("the HTML report renders in headless Chromium: charts, tables, escaped names, no console message") {
        REQUIRE_MESSAGE(std::filesystem::exists(k_chromium),
                        "chromium is missing: run scripts/setup.sh (it installs Debian's chromium)");
        const std::string hostile = "<script>document.title='owned'</script>";
        Sandbox sandbox({"--reject-number", numbers_wa_id(2)});
        // Rows 1-6: numbers 0-5, the third (rejected) named `hostile`; row 7 an invalid number.
        std::string csv = numbers_csv(6);
        const std::string third = "Person 2,";
        csv.replace(csv.find(third), third.size() - 1, hostile);
        CampaignFixture f(sandbox, csv + "12345,Bad,u9\n");
        REQUIRE(f.wacamp({"run", f.campaign.string(), "--no-progress"}).exit_code == 1);

        const auto page = f.dir.path() / "report.html";
        auto report = run_wacamp({"report", f.log.string(), "--format", "html", "--output", page.string()});
        REQUIRE(report.exit_code == 0);
        CHECK(report.out.empty());

        const auto r = render(page, f.dir);
        REQUIRE(r.exit_code == 0);
        // The elements survive parsing: the figures, both charts with their drawing, the tables.
        for (auto part : {R"(<svg id="chart-rate")", R"(<svg id="chart-latency")", R"(<svg id="status-bar")",
                          R"(<path class="c-sent")", R"(<path class="line")", R"(<section id="errors">)",
                          R"(<section id="slowest">)", R"(<section id="not-sent">)",
                          "<title>e2e — wacamp report</title>", "131026"}) {
            CAPTURE(part);
            CHECK(contains(r.dom, part));
        }
        CHECK(contains(r.dom, R"(<div class="label">Sent</div><div class="value">5</div>)"));
        CHECK(contains(r.dom, R"(<div class="label">Failed</div><div class="value">1</div>)"));
        CHECK(contains(r.dom, R"(<div class="label">Invalid</div><div class="value">1</div>)"));
        // The hostile name is text, not markup: no script element, the title untouched.
        CHECK(contains(r.dom, "&lt;script&gt;document.title='owned'&lt;/script&gt;"));
        CHECK_FALSE(contains(r.dom, "<script"));
        // Anything the page tried to fetch or run would be reported as a console message.
        CAPTURE(r.log);
        CHECK_FALSE(contains(r.log, "CONSOLE"));
        CHECK_FALSE(contains(r.log, "Uncaught"));
        CHECK(r.png.size() > 10'000);
        CHECK(r.png.starts_with("\x89PNG\r\n\x1a\n"));
    }

    TEST_CASE("a dry run's log renders too") {
        REQUIRE_MESSAGE(std::filesystem::exists(k_chromium),
                        "chromium is missing: run scripts/setup.sh (it installs Debian's chromium)");
        Sandbox sandbox;
        CampaignFixture f(sandbox, numbers_csv(3) + "12345,Bad,u9\n");
        REQUIRE(f.wacamp({"run", f.campaign.string(), "--dry-run"}).exit_code == 0);
        const auto log = f.dir.path() / "results" / "e2e.dry-run.jsonl";
        auto report = run_wacamp({"report", log.string(), "--format", "html"});
        REQUIRE(report.exit_code == 0);
        const auto page = f.dir.write("dry.html", report.out);

        const auto r = render(page, f.dir);
        REQUIRE(r.exit_code == 0);
        CHECK(contains(r.dom, R"(<span class="badge">dry run</span>)"));
        CHECK(contains(r.dom, R"(<div class="label">Would send</div><div class="value">3</div>)"));
        CHECK(contains(r.dom, "a dry run sends nothing"));
        CAPTURE(r.log);
        CHECK_FALSE(contains(r.log, "CONSOLE"));
        CHECK(r.png.starts_with("\x89PNG\r\n\x1a\n"));
    }
}
