// Writes the table the protobuf decoder (src/kube/protobuf) reads: for every kind client-go's
// scheme knows, the protobuf field numbers of its Go types together with what their JSON form
// needs and the .proto files do not say — JSON names, inline structs, omitempty/omitzero,
// pointer fields, and the types that marshal themselves (times, quantities, int-or-strings).
//
//	cd scripts/protobuf-schema && go run . > ../../src/kube/protobuf/schema.generated.ts
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes/scheme"
)

// Field flags; the decoder has the same constants.
const (
	repeated  = 1
	pointer   = 2
	omitEmpty = 4
	inline    = 8
	omitZero  = 16
)

// Types with a protobuf and a JSON form of their own.
var special = map[reflect.Type]string{
	reflect.TypeFor[metav1.Time]():          "time",
	reflect.TypeFor[metav1.MicroTime]():     "microtime",
	reflect.TypeFor[metav1.Duration]():      "duration",
	reflect.TypeFor[resource.Quantity]():    "quantity",
	reflect.TypeFor[intstr.IntOrString]():   "intorstr",
	reflect.TypeFor[runtime.RawExtension](): "raw",
	reflect.TypeFor[metav1.FieldsV1]():     "fieldsv1",
}

var jsonMarshaler = reflect.TypeFor[json.Marshaler]()

type table struct {
	Source string                     `json:"source"`
	Kinds  map[string]string          `json:"kinds"`
	Types  map[string][][]interface{} `json:"types"`
}

func typeID(t reflect.Type) string {
	p := t.PkgPath()
	for _, prefix := range []string{"k8s.io/api/", "k8s.io/apimachinery/pkg/apis/", "k8s.io/apimachinery/pkg/"} {
		p = strings.TrimPrefix(p, prefix)
	}
	return p + "." + t.Name()
}

func main() {
	out := table{Kinds: map[string]string{}, Types: map[string][][]interface{}{}}
	var walk func(t reflect.Type) string
	// value returns the type code of a field's (element) type, walking structs it meets.
	value := func(t reflect.Type) string {
		if s, ok := special[t]; ok {
			return s
		}
		switch t.Kind() {
		case reflect.String:
			return "string"
		case reflect.Bool:
			return "bool"
		case reflect.Int, reflect.Int32, reflect.Int64, reflect.Int16, reflect.Int8:
			return "int"
		case reflect.Uint, reflect.Uint32, reflect.Uint64, reflect.Uint16:
			return "uint"
		case reflect.Float64:
			return "double"
		case reflect.Float32:
			return "float"
		case reflect.Struct:
			return "." + walk(t)
		}
		fail("%s: no protobuf form for a %s", t, t.Kind())
		return ""
	}
	walk = func(t reflect.Type) string {
		id := typeID(t)
		if _, done := out.Types[id]; done {
			return id
		}
		if reflect.PointerTo(t).Implements(jsonMarshaler) || t.Implements(jsonMarshaler) {
			fail("%s marshals its own JSON and is not one of the special types", t)
		}
		out.Types[id] = nil // guards recursion (JSONSchemaProps-like self references)
		fields := [][]interface{}{}
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			tag := f.Tag.Get("protobuf")
			if tag == "" || tag == "-" {
				continue
			}
			parts := strings.Split(tag, ",")
			num, err := strconv.Atoi(parts[1])
			if err != nil {
				fail("%s.%s: protobuf tag %q", t, f.Name, tag)
			}
			jsonTag := strings.Split(f.Tag.Get("json"), ",")
			name := jsonTag[0]
			flags := 0
			for _, o := range jsonTag[1:] {
				switch o {
				case "omitempty":
					flags |= omitEmpty
				case "omitzero":
					flags |= omitZero
				case "inline":
					flags |= inline
				}
			}
			if name == "-" {
				continue
			}
			if name == "" && f.Anonymous {
				flags |= inline
			} else if name == "" {
				name = f.Name
			}
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				flags |= pointer
				ft = ft.Elem()
			}
			var code string
			var extra []interface{}
			switch {
			case special[ft] != "":
				code = special[ft]
			case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Uint8:
				code = "bytes"
			case ft.Kind() == reflect.Slice:
				flags |= repeated
				et := ft.Elem()
				if et.Kind() == reflect.Pointer {
					et = et.Elem()
				}
				if et.Kind() == reflect.Slice && et.Elem().Kind() != reflect.Uint8 {
					fail("%s.%s: a list of lists", t, f.Name)
				}
				if et.Kind() == reflect.Slice {
					code = "bytes"
				} else {
					code = value(et)
				}
			case ft.Kind() == reflect.Map:
				code = "map"
				vt := ft.Elem()
				var v interface{}
				if vt.Kind() == reflect.Slice && vt.Elem().Kind() == reflect.Uint8 {
					v = "bytes"
				} else if vt.Kind() == reflect.Slice {
					// map[string][]string: the value is a message with one repeated field 1.
					v = []interface{}{"list", value(vt.Elem())}
				} else {
					v = value(vt)
				}
				extra = []interface{}{value(ft.Key()), v}
			default:
				code = value(ft)
			}
			field := []interface{}{num, name, code, flags}
			field = append(field, extra...)
			fields = append(fields, field)
		}
		sort.SliceStable(fields, func(a, b int) bool { return fields[a][0].(int) < fields[b][0].(int) })
		out.Types[id] = fields
		return id
	}
	for gvk, t := range scheme.Scheme.AllKnownTypes() {
		if t.Kind() != reflect.Struct || gvk.Version == runtime.APIVersionInternal {
			continue
		}
		// Lists are read as their items' kind; the options and WatchEvent every group registers are
		// not objects an informer holds.
		if strings.HasSuffix(gvk.Kind, "List") || t.PkgPath() == "k8s.io/apimachinery/pkg/apis/meta/v1" {
			continue
		}
		if _, ok := reflect.New(t).Interface().(interface{ Marshal() ([]byte, error) }); !ok {
			continue // no protobuf form (the API server answers these in JSON)
		}
		out.Kinds[gvk.GroupVersion().String()+"/"+gvk.Kind] = walk(t)
	}
	walk(reflect.TypeFor[metav1.Status]())
	out.Source = "k8s.io/api " + version("k8s.io/api") + ", k8s.io/apimachinery " + version("k8s.io/apimachinery")
	body, err := json.Marshal(out)
	if err != nil {
		fail("%v", err)
	}
	fmt.Println("// Generated by scripts/protobuf-schema (go run .) from " + out.Source + ". Do not edit.")
	fmt.Println("// The protobuf field numbers of the built-in kinds' Go types, with their JSON names and JSON")
	fmt.Println("// rules: see src/kube/protobuf/schema.ts.")
	if strings.ContainsAny(string(body), "'\\\n") {
		fail("the table has a quote, backslash or newline that the generated string would need to escape")
	}
	fmt.Printf("export const SCHEMA_JSON =\n  '%s';\n", body)
}

func version(mod string) string {
	data, err := os.ReadFile("go.mod")
	if err != nil {
		fail("%v", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == mod {
			return f[1]
		}
	}
	fail("go.mod does not require %s", mod)
	return ""
}

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "protobuf-schema: "+format+"\n", args...)
	os.Exit(1)
}
