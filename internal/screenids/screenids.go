// Package screenids declares the screens a role can be granted, each id with
// its name and route, once. The API's permission checks, the home figures and
// the alerts name screens by these constants; the migrations seed the
// web_screen table with the same rows, and the server refuses to start when
// the table and this list differ (server.CheckRouteScreens), so an id cannot
// mean one screen here and another there. A metadata screen's views.yaml
// `screen:` is one of these ids, checked against the table too.
package screenids

// The screens, by id.
const (
	Home           = 1
	DataImport     = 2
	UsersList      = 3
	UserEdit       = 4
	RolesList      = 5
	RoleEdit       = 6
	ProcessedBank  = 7
	BankSettings   = 8
	ExchangeRates  = 9
	Countries      = 10
	ConfigSettings = 11
	ExtractionLogs = 12
	Reconcile      = 13
	Tasks          = 14
	Reports        = 15
	Audit          = 16
	Approvals      = 17
)

// Screen is one row of the web_screen table.
type Screen struct {
	ID    int
	Name  string
	Route string
}

// All are the screens as the web_screen table must hold them.
var All = []Screen{
	{Home, "Home", "dashboard/home"},
	{DataImport, "Data Import", "dashboard/financialdocument"},
	{UsersList, "Users List", "dashboard/userslist"},
	{UserEdit, "User Add/Edit", "dashboard/users"},
	{RolesList, "Roles List", "dashboard/roleslist"},
	{RoleEdit, "Role Add/Edit", "dashboard/roles"},
	{ProcessedBank, "Processed Bank Files", "dashboard/csvprocessed"},
	{BankSettings, "Bank Settings", "dashboard/bank-settings"},
	{ExchangeRates, "Exchange Rates", "dashboard/cera-settings"},
	{Countries, "Countries", "dashboard/ras-settings"},
	{ConfigSettings, "Configuration Settings", "dashboard/config-settings"},
	{ExtractionLogs, "Extraction Logs", "dashboard/extraction-logs"},
	{Reconcile, "Reconcile", "dashboard/bank-settlement"},
	{Tasks, "Tasks", "dashboard/tasks"},
	{Reports, "Reports", "dashboard/reports"},
	{Audit, "Audit Trail", "dashboard/audit"},
	{Approvals, "Approvals", "dashboard/approvals"},
}
