#include <doctest/doctest.h>

#include "util/base64.hpp"
#include "util/redact.hpp"

namespace {

// A key with characters that JSON, URLs and HTML each write differently.
const std::string k_key = "ak+Secret/Key=\"9Z\"";

// The two hex digits of byte `c` in `digits`.
std::string fmt_hex(char c, const char* digits) {
    const auto b = static_cast<unsigned char>(c);
    return {digits[b >> 4], digits[b & 15]};
}

util::Redactor with_key() {
    util::Redactor r;
    r.add(k_key);
    return r;
}

}  // namespace

TEST_SUITE("util::Redactor") {
    TEST_CASE("mask() masks in place exactly as apply() does, and says whether it found one") {
        const auto r = with_key();
        const std::vector<std::string> texts = {"no secret here", "", "x" + k_key + "y" + k_key,
                                                "ak%2BSecret%2FKey%3D%229Z%22 in a URL", "ak+Secret"};
        for (const std::string& text : texts) {
            CAPTURE(text);
            std::string masked = text;
            CHECK(r.mask(masked) == (r.apply(text) != text));
            CHECK(masked == r.apply(text));
        }
        std::string untouched = "plain";
        CHECK_FALSE(util::Redactor().mask(untouched));
        CHECK(untouched == "plain");
    }
    TEST_CASE("masks a secret as it is") {
        CHECK(with_key().apply("bad key " + k_key + "!") == "bad key ***!");
    }
    TEST_CASE("masks at either end, side by side, and leaves a text without a secret as it is") {
        util::Redactor r;
        r.add("sandbox-key");
        CHECK(r.apply("sandbox-key") == "***");
        CHECK(r.apply("sandbox-keysandbox-key says sandbox-key") == "****** says ***");
        CHECK(r.apply("sand sandbox sandbox-ke sandbox-kez") == "sand sandbox sandbox-ke sandbox-kez");
        CHECK(r.apply("") == "");
        // A plain beginning that turns encoded half-way is still the secret.
        CHECK(r.apply("key=sandbox%2Dkey&x") == "key=***&x");
        CHECK(r.apply("Hi sandbox-k\u0065y") == "Hi ***");
    }
    TEST_CASE("masks a secret whose first or second character alone comes escaped or encoded") {
        // The scan looks at two bytes before it tries the secrets: an escape in either place
        // must still lead to a match, in every encoding, and at the text's very end.
        util::Redactor r;
        r.add("sandbox-key");
        const std::vector<std::string> forms = {"s%61ndbox-key",    "s%61ndbox%2Dkey", "s\\u0061ndbox-key",
                                                "s&#97;ndbox-key",  "%73andbox-key",   "\\u0073andbox-key",
                                                "&#115;andbox-key", "&#x73;andbox-key"};
        for (const std::string& form : forms) {
            CAPTURE(form);
            CHECK(r.apply("k=" + form) == "k=***");
            CHECK(r.apply(form + " end") == "*** end");
        }
        util::Redactor spaced;
        spaced.add("a pass phrase");
        CHECK(spaced.apply("p=a+pass+phrase") == "p=***");
        // Escapes that stand for no secret's first byte are passed over.
        CHECK(r.apply(R"(50% off\n+91 & more)") == R"(50% off\n+91 & more)");
    }
    TEST_CASE("masks a secret the service echoes JSON-escaped") {
        const auto r = with_key();
        CHECK(r.apply(R"({"message":"bad key ak+Secret/Key=\"9Z\""})") == R"({"message":"bad key ***"})");
        // Escaped solidus (PHP's json_encode) and \u escapes.
        CHECK(r.apply(R"(key ak+Secret\/Key=\u0022\u0039Z\" end)") == "key *** end");
    }
    TEST_CASE("masks a secret the service echoes URL-encoded, in upper- or lower-case hex") {
        const auto r = with_key();
        CHECK(r.apply("GET /x?apiKey=ak%2BSecret%2FKey%3D%229Z%22&y=1") == "GET /x?apiKey=***&y=1");
        CHECK(r.apply("apiKey=ak%2bSecret%2fKey%3d%229Z%22") == "apiKey=***");
        // Encoders differ on what they leave alone; every character may come either way.
        CHECK(r.apply("apiKey=ak%2BSecret/Key%3D\"9Z\"") == "apiKey=***");
        CHECK(r.apply("apiKey=%61%6B%2B%53ecret%2FKey%3D%229Z%22") == "apiKey=***");
    }
    TEST_CASE("masks a secret the service echoes HTML-escaped") {
        CHECK(with_key().apply("<p>ak+Secret/Key=&quot;9Z&#34;</p>") == "<p>***</p>");
    }
    TEST_CASE("masks a space written as + in a form-encoded secret") {
        util::Redactor r;
        r.add("pass phrase 42");
        CHECK(r.apply("p=pass+phrase%2042") == "p=***");
    }
    TEST_CASE("masks a non-ASCII secret written with \\u escapes") {
        util::Redactor r;
        r.add("clé-secrète");
        CHECK(r.apply(R"(k=cl\u00e9-secr\u00E8te)") == "k=***");
        CHECK(r.apply("k=cl%C3%A9-secr%c3%a8te") == "k=***");
    }
    TEST_CASE("masks a secret cut short by a clipped error text") {
        // Error texts are clipped with "…"; the part of the key before the cut still goes.
        CHECK(with_key().apply("invalid key ak+Secr…") == "invalid key ***…");
        CHECK(with_key().apply("invalid ak+…") == "invalid ak+…");  // under 4 characters: left
    }
    TEST_CASE("leaves text that only resembles a secret") {
        const auto r = with_key();
        CHECK(r.apply("ak+Secret/Key=9Z") == "ak+Secret/Key=9Z");
        CHECK(r.apply("%2B%2F%3D and \\\" and &quot;") == "%2B%2F%3D and \\\" and &quot;");
        CHECK(r.apply("ak+Secret") == "ak+Secret");
    }
    TEST_CASE("masks the longer of two secrets that share a beginning whole") {
        util::Redactor r;
        r.add("token");
        r.add("token-long");
        CHECK(r.apply("a token-long b token c") == "a *** b *** c");
    }
    TEST_CASE("masks a secret's base64, alone and inside Basic authentication's user:password, at any alignment") {
        util::Redactor r;
        r.add("s3cr3t-pw-0123");
        CHECK(r.apply("token " + util::base64("s3cr3t-pw-0123") + " refused") == "token *** refused");
        // The user's length puts the password at each of base64's three alignments.
        for (const std::string user : {"pushuser", "pushuser1", "pushuser12"}) {
            const std::string header = "Authorization: Basic " + util::base64(user + ":s3cr3t-pw-0123");
            const std::string masked = r.apply(header);
            CAPTURE(header);
            CAPTURE(masked);
            CHECK(masked.find("***") != std::string::npos);
            // What is left of the encoding decodes to at most a character of the password.
            const std::string left = masked.substr(masked.find("***") + 3);
            CHECK(left.size() <= 4);
        }
        // The URL-safe alphabet too.
        util::Redactor slashes;
        slashes.add("\xff\xfe\xfd-secret-\xfb\xff");
        std::string url_safe = util::base64("\xff\xfe\xfd-secret-\xfb\xff");
        REQUIRE(url_safe.find_first_of("+/") != std::string::npos);
        for (auto& c : url_safe) {
            c = c == '+' ? '-' : c == '/' ? '_' : c;
        }
        CHECK(slashes.apply("id=" + url_safe) == "id=***");
    }
    TEST_CASE("the user:password pair as a whole: its Basic header is masked whole") {
        util::Redactor r;
        r.add("pushuser:s3cr3t-pw");
        CHECK(r.apply("Basic " + util::base64("pushuser:s3cr3t-pw")) == "Basic ***");
    }
    TEST_CASE("masks a secret a server echoes upper- or lower-cased, in hex, or percent-encoded twice") {
        util::Redactor r;
        r.add("abcdef0123456789abcdef0123456789");
        CHECK(r.apply("key ABCDEF0123456789ABCDEF0123456789 refused") == "key *** refused");
        std::string hex;
        std::string hex_upper;
        std::string twice;
        for (const char c : std::string("abcdef0123456789abcdef0123456789")) {
            hex += fmt_hex(c, "0123456789abcdef");
            hex_upper += fmt_hex(c, "0123456789ABCDEF");
            twice += "%25" + fmt_hex(c, "0123456789ABCDEF");
        }
        CHECK(r.apply("k=" + hex + ";") == "k=***;");
        CHECK(r.apply("k=" + hex_upper + ";") == "k=***;");
        CHECK(r.apply("k=" + twice + ";") == "k=***;");
        util::Redactor mixed;
        mixed.add("Mixed+Case/Key");
        CHECK(mixed.apply("[mixed+case/key] [MIXED+CASE/KEY] [Mixed%252BCase%252FKey] [Mixed%252bCase%252fKey]") ==
              "[***] [***] [***] [***]");
    }
    TEST_CASE("masks a secret folded at white space, as it is or JSON-escaped") {
        util::Redactor r;
        r.add("abcdef0123456789abcdef0123456789");
        CHECK(r.apply("key abcdef0123456789 abcdef0123456789.") == "key ***.");
        CHECK(r.apply("key abcdef0123456789\r\nabcdef0123456789.") == "key ***.");
        CHECK(r.apply("key abcdef0123456789\n  abcdef0123456789.") == "key ***.");
        CHECK(r.apply("abcdef 0123") == "abcdef 0123");
    }
    TEST_CASE("masks a secret with invisible format characters inside, as they are or escaped") {
        util::Redactor r;
        r.add("sandbox-key");
        // U+200B, U+200C, U+200D, U+200E, U+200F, U+2060, U+2064, U+FEFF, U+00AD
        const std::vector<std::string> invisible = {"\u200b", "\u200c", "\u200d", "\u200e", "\u200f",
                                                    "\u2060", "\u2064", "\ufeff", "\u00ad"};
        for (const std::string& format : invisible) {
            CAPTURE(format);
            CHECK(r.apply("k=s" + format + "andbox-key;") == "k=***;");
            CHECK(r.apply("k=sandbox" + format + "-k" + format + format + "ey;") == "k=***;");
            CHECK(r.holds("sandbox-" + format + "key"));
            CHECK(r.apply("SANDBOX" + format + "-KEY") == "***");
        }
        CHECK(r.apply(R"({"name":"sand\u200bbox-key"})") == R"({"name":"***"})");
        CHECK(r.apply("sandbox&#8203;-key") == "***");
        // Characters that are not format characters still tell a text from the secret.
        CHECK(r.apply("s\u2065andbox-key s\u2010andbox-key s\u00a0andbox-key") ==
              "s\u2065andbox-key s\u2010andbox-key s\u00a0andbox-key");
        CHECK(r.apply("sandbox-ke\u200b") == "sandbox-ke\u200b");
    }
    TEST_CASE("masks a non-ASCII secret echoed as its UTF-8 read as Latin-1") {
        util::Redactor r;
        r.add("Sk9ZzLongKey\xc3\xbc\xe2\x82\xac");  // ü€
        CHECK(r.apply("[Sk9ZzLongKey\xc3\x83\xc2\xbc\xc3\xa2\xc2\x82\xc2\xac]") == "[***]");
    }
    TEST_CASE("holds() says whether a text holds a secret in any form apply() masks") {
        const auto r = with_key();
        CHECK(r.holds("x " + k_key));
        CHECK(r.holds("ak%2BSecret%2FKey%3D%229Z%22"));
        CHECK(r.holds(util::base64(k_key)));
        CHECK_FALSE(r.holds("ak+Secret"));
        CHECK_FALSE(util::Redactor().holds(k_key));
    }
    TEST_CASE("without secrets, text is unchanged") {
        util::Redactor r;
        CHECK(r.apply("100% \\ & +") == "100% \\ & +");
    }
}
