package identity

import (
	"net/mail"
	"regexp"
	"strings"
	"time"

	"ledgerdesk/engine"
)

// DateFormats are the user date formats of spec 01 section 9.
var DateFormats = []string{
	"DD-MM-YYYY HH:mm:ss", "DD/MM/YYYY HH:mm:ss", "MM-DD-YYYY HH:mm:ss",
	"MM/DD/YYYY HH:mm:ss", "YYYY-MM-DD HH:mm:ss", "YYYY/MM/DD HH:mm:ss",
}

// Languages are the interface languages.
var Languages = []string{"en", "sv", "es", "pt"}

var (
	usernamePattern = regexp.MustCompile(`^[A-Za-z0-9._@-]{3,50}$`)
	mobilePattern   = regexp.MustCompile(`^\+?[0-9 ()-]{5,30}$`)
	earliestBirth   = time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC)
)

// personFields are the fields the user form and the profile share.
type personFields struct {
	FirstName    string  `json:"firstName"`
	LastName     string  `json:"lastName"`
	Email        string  `json:"email"`
	MobileNumber string  `json:"mobileNumber"`
	DateOfBirth  *string `json:"dateOfBirth"` // yyyy-MM-dd, empty or null for none
	DateFormat   string  `json:"dateFormat"`
	LanguageCode string  `json:"languageCode"`
}

// clean trims the fields, applies defaults and checks every rule the forms
// check, naming the field of the first one broken.
func (p *personFields) clean(today time.Time) (*time.Time, error) {
	p.FirstName = strings.TrimSpace(p.FirstName)
	p.LastName = strings.TrimSpace(p.LastName)
	p.Email = strings.TrimSpace(p.Email)
	p.MobileNumber = strings.TrimSpace(p.MobileNumber)
	if p.DateFormat == "" {
		p.DateFormat = DefaultDateFormat
	}
	if p.LanguageCode == "" {
		p.LanguageCode = DefaultLanguage
	}
	switch {
	case p.FirstName == "":
		return nil, engine.Invalid("firstName", "First name is required.")
	case len([]rune(p.FirstName)) > 100:
		return nil, engine.Invalid("firstName", "First name must be at most 100 characters.")
	case p.LastName == "":
		return nil, engine.Invalid("lastName", "Last name is required.")
	case len([]rune(p.LastName)) > 100:
		return nil, engine.Invalid("lastName", "Last name must be at most 100 characters.")
	case p.Email == "":
		return nil, engine.Invalid("email", "Email is required.")
	case !validEmail(p.Email):
		return nil, engine.Invalid("email", "Email is not a valid email address.")
	case p.MobileNumber != "" && !mobilePattern.MatchString(p.MobileNumber):
		return nil, engine.Invalid("mobileNumber", "Mobile number may hold only digits, spaces, ( ) - and a leading +, 5 to 30 characters.")
	case !contains(DateFormats, p.DateFormat):
		return nil, engine.Invalid("dateFormat", "Date format must be one of %s.", strings.Join(DateFormats, ", "))
	case !contains(Languages, p.LanguageCode):
		return nil, engine.Invalid("languageCode", "Language must be one of en, sv, es, pt.")
	}
	return parseBirthDate(p.DateOfBirth, today)
}

// parseBirthDate reads a yyyy-MM-dd date of birth: not before 1 January 1900
// and not after today. Nil or empty means none.
func parseBirthDate(s *string, today time.Time) (*time.Time, error) {
	if s == nil || strings.TrimSpace(*s) == "" {
		return nil, nil
	}
	v := strings.TrimSpace(*s)
	if len(v) > 10 { // accept a full ISO timestamp from older clients: only the date counts
		v = v[:10]
	}
	d, err := time.Parse("2006-01-02", v)
	if err != nil {
		return nil, engine.Invalid("dateOfBirth", "Invalid date format. Please check the date of birth.")
	}
	if d.Before(earliestBirth) {
		return nil, engine.Invalid("dateOfBirth", "Please select a date after January 1, 1900.")
	}
	y, m, dd := today.Date()
	if d.After(time.Date(y, m, dd, 0, 0, 0, 0, time.UTC)) {
		return nil, engine.Invalid("dateOfBirth", "Date of birth cannot be in the future.")
	}
	return &d, nil
}

func validEmail(s string) bool {
	if len(s) > 254 || strings.ContainsAny(s, " <>") {
		return false
	}
	a, err := mail.ParseAddress(s)
	return err == nil && a.Address == s && strings.Contains(s[strings.LastIndex(s, "@")+1:], ".")
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}
