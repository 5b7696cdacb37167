package model

// Group is a contact group. The API cannot list groups, so smsdesk remembers the
// ones it created or was told about (see config).
type Group struct {
	ID          ID     `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// Contact is one member of a group.
type Contact struct {
	ID      ID     `json:"id"`
	GroupID ID     `json:"group_id,omitempty"`
	Name    string `json:"name"`
	Mobile  string `json:"mobile"`
}

// Pair is one item of a paired send: the recipient gets only its own message.
type Pair struct {
	Recipient string `json:"recipient"`
	Message   string `json:"message"`
}
