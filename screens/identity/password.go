package identity

import (
	"bufio"
	"crypto/rand"
	"crypto/subtle"
	_ "embed"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"unicode"

	"golang.org/x/crypto/argon2"

	"ledgerdesk/engine"
)

// argon2id parameters of DESIGN.md section 8 (OWASP's minimum for argon2id).
const (
	argonMemory  = 19456 // KiB
	argonTime    = 2
	argonThreads = 1
	argonKeyLen  = 32
	argonSaltLen = 16
)

// HashPassword returns the PHC string of an argon2id hash of password.
func HashPassword(password string) (string, error) {
	salt := make([]byte, argonSaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	key := argon2.IDKey([]byte(password), salt, argonTime, argonMemory, argonThreads, argonKeyLen)
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, argonMemory, argonTime, argonThreads, b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

// VerifyPassword reports whether password matches the PHC string, in
// constant time. The parameters come from the string, so older hashes keep
// working when the defaults change.
func VerifyPassword(phc, password string) (bool, error) {
	parts := strings.Split(phc, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false, errors.New("not an argon2id hash")
	}
	var version int
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return false, errors.New("unsupported argon2 version")
	}
	var mem, iters uint32
	var threads uint8
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &mem, &iters, &threads); err != nil {
		return false, fmt.Errorf("argon2 parameters: %w", err)
	}
	b64 := base64.RawStdEncoding
	salt, err := b64.DecodeString(parts[4])
	if err != nil {
		return false, err
	}
	want, err := b64.DecodeString(parts[5])
	if err != nil {
		return false, err
	}
	got := argon2.IDKey([]byte(password), salt, iters, mem, threads, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}

// dummyHash is verified against when the username is unknown, so an unknown
// user costs the same time as a wrong password.
var dummyHash, _ = HashPassword("ledgerdesk-timing-equaliser")

// PasswordSpecials are the special characters the user password rules accept
// (spec 01 section 5).
const PasswordSpecials = `!@#$%^&*(),.?":{}|<>`

// PasswordRules is the checklist of the user form: each rule and whether the
// password meets it.
type PasswordRules struct {
	Length, Upper, Lower, Digit, Special bool
}

// PasswordMinLength and PasswordMaxLength bound a password's length in
// characters (spec 01 section 5); the UI reads them, with PasswordSpecials,
// from the app configuration, so its meter judges by these same rules.
const (
	PasswordMinLength = 8
	PasswordMaxLength = 20
)

// CheckPasswordRules evaluates the user password rules: 8 to 20 characters,
// an uppercase and a lowercase letter, a digit, and a special character.
func CheckPasswordRules(p string) PasswordRules {
	var r PasswordRules
	n := len([]rune(p))
	r.Length = n >= PasswordMinLength && n <= PasswordMaxLength
	for _, c := range p {
		switch {
		case unicode.IsUpper(c):
			r.Upper = true
		case unicode.IsLower(c):
			r.Lower = true
		case unicode.IsDigit(c):
			r.Digit = true
		case strings.ContainsRune(PasswordSpecials, c):
			r.Special = true
		}
	}
	return r
}

// Met counts the rules met (the user form's meter: weak under 3, medium 3-4, strong 5).
func (r PasswordRules) Met() int {
	n := 0
	for _, ok := range []bool{r.Length, r.Upper, r.Lower, r.Digit, r.Special} {
		if ok {
			n++
		}
	}
	return n
}

// ValidatePassword returns a message naming the first rule password breaks,
// or "" when it meets them all.
func ValidatePassword(p string) string {
	msg, _ := passwordProblem(p)
	return msg
}

// PasswordError is the refusal of a password that breaks a rule, with the
// rule's message code (nil when it meets them all); what names the password
// in the English text ("New password").
func PasswordError(field, what, p string) *engine.Error {
	msg, code := passwordProblem(p)
	if msg == "" {
		return nil
	}
	return engine.Invalid(field, "%s %s.", what, msg).
		With(code, "min", PasswordMinLength, "max", PasswordMaxLength, "specials", PasswordSpecials)
}

func passwordProblem(p string) (msg, code string) {
	r := CheckPasswordRules(p)
	switch {
	case !r.Length:
		return fmt.Sprintf("must be %d to %d characters long", PasswordMinLength, PasswordMaxLength), "password.length"
	case !r.Upper:
		return "must contain an uppercase letter", "password.uppercase"
	case !r.Lower:
		return "must contain a lowercase letter", "password.lowercase"
	case !r.Digit:
		return "must contain a digit", "password.digit"
	case !r.Special:
		return "must contain a special character (" + PasswordSpecials + ")", "password.special"
	case commonPasswords[strings.ToLower(p)]:
		return "is one of the most common passwords; choose one that is harder to guess", "password.common"
	}
	return "", ""
}

//go:embed common-passwords.txt
var commonPasswordList string

// commonPasswords are passwords that meet the rules but are among the first
// an attacker tries (lower case): ValidatePassword refuses them.
var commonPasswords = func() map[string]bool {
	m := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(commonPasswordList))
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" && !strings.HasPrefix(line, "#") {
			m[strings.ToLower(line)] = true
		}
	}
	return m
}()
