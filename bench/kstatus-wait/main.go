// Waits with kstatus (sigs.k8s.io/cli-utils, pkg/kstatus/watcher) until every object of a set of
// manifests is Current: the third contender of bench/apply-set.mjs, after `kubectl apply
// --server-side -f DIR` has written the same files.
//
//	kstatus-wait --kubeconfig FILE [--namespace NS] [--timeout 5m] [--qps -1] DIR|FILE...
//
// The objects are read from every .yaml, .yml and .json file given (or found directly in a folder
// given), one document after another; an object without a namespace is in --namespace when its kind
// is namespaced. They are watched with the DefaultStatusWatcher (one informer per kind in the
// namespace, generated ReplicaSets and Pods read from the cluster, as cli-utils' own apply does).
// On success it prints one JSON line on stdout, {"objects":N,"events":E,"syncMs":S,"currentMs":C},
// with the milliseconds from its start to the watcher's first sync and to every object Current,
// and exits 0. It exits 1, naming the objects not Current on stderr, when the timeout passes or
// the watcher fails.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/cli-utils/pkg/kstatus/polling/event"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
	"sigs.k8s.io/cli-utils/pkg/kstatus/watcher"
	"sigs.k8s.io/cli-utils/pkg/object"
)

func manifestFiles(args []string) ([]string, error) {
	var files []string
	isManifest := func(name string) bool {
		ext := strings.ToLower(filepath.Ext(name))
		return ext == ".yaml" || ext == ".yml" || ext == ".json"
	}
	for _, arg := range args {
		info, err := os.Stat(arg)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			files = append(files, arg)
			continue
		}
		entries, err := os.ReadDir(arg)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if !e.IsDir() && isManifest(e.Name()) {
				files = append(files, filepath.Join(arg, e.Name()))
			}
		}
	}
	sort.Strings(files)
	return files, nil
}

// readObjects decodes every document of the files (YAML or JSON, `---` between documents).
func readObjects(files []string) ([]*unstructured.Unstructured, error) {
	var objs []*unstructured.Unstructured
	for _, file := range files {
		f, err := os.Open(file)
		if err != nil {
			return nil, err
		}
		dec := utilyaml.NewYAMLOrJSONDecoder(f, 64<<10)
		for {
			var m map[string]any
			err := dec.Decode(&m)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				f.Close()
				return nil, fmt.Errorf("%s: %w", file, err)
			}
			if len(m) == 0 {
				continue
			}
			objs = append(objs, &unstructured.Unstructured{Object: m})
		}
		f.Close()
	}
	return objs, nil
}

// identify names each object as the watcher does, its namespace filled in for a namespaced kind.
func identify(objs []*unstructured.Unstructured, mapper meta.RESTMapper, namespace string) (object.ObjMetadataSet, error) {
	ids := make(object.ObjMetadataSet, 0, len(objs))
	for _, o := range objs {
		gvk := o.GroupVersionKind()
		ns := o.GetNamespace()
		mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", gvk, o.GetName(), err)
		}
		if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
			if ns == "" {
				ns = namespace
			}
		} else {
			ns = ""
		}
		ids = append(ids, object.ObjMetadata{Namespace: ns, Name: o.GetName(), GroupKind: gvk.GroupKind()})
	}
	return ids.Unique(), nil
}

func run() error {
	started := time.Now()
	kubeconfig := flag.String("kubeconfig", os.Getenv("KUBECONFIG"), "kubeconfig file")
	namespace := flag.String("namespace", "default", "namespace of the objects that name none")
	timeout := flag.Duration("timeout", 5*time.Minute, "give up after this long")
	qps := flag.Float64("qps", -1, "client-side rate limit of the watcher's requests (-1: none); client-go's default is 5")
	burst := flag.Int("burst", 10, "client-side burst, with --qps > 0")
	flag.Parse()
	if flag.NArg() == 0 {
		return errors.New("usage: kstatus-wait --kubeconfig FILE [--namespace NS] [--timeout 5m] [--qps -1] DIR|FILE...")
	}

	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		return err
	}
	cfg.QPS = float32(*qps)
	cfg.Burst = *burst
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	disco, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return err
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(disco))

	files, err := manifestFiles(flag.Args())
	if err != nil {
		return err
	}
	objs, err := readObjects(files)
	if err != nil {
		return err
	}
	ids, err := identify(objs, mapper, *namespace)
	if err != nil {
		return err
	}

	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	latest := make(map[object.ObjMetadata]status.Status, len(ids))
	current := 0
	events := 0
	var syncMs int64 = -1
	ch := watcher.NewDefaultStatusWatcher(dyn, mapper).Watch(ctx, ids, watcher.Options{})
	for e := range ch {
		switch e.Type {
		case event.ErrorEvent:
			cancel()
			return fmt.Errorf("the watcher failed: %w", e.Error)
		case event.SyncEvent:
			syncMs = time.Since(started).Milliseconds()
		case event.ResourceUpdateEvent:
			events++
			id := e.Resource.Identifier
			if latest[id] == status.CurrentStatus {
				current--
			}
			latest[id] = e.Resource.Status
			if e.Resource.Status == status.CurrentStatus {
				current++
			}
		}
		if current == len(ids) {
			cancel()
			out, _ := json.Marshal(map[string]int64{
				"objects":   int64(len(ids)),
				"events":    int64(events),
				"syncMs":    syncMs,
				"currentMs": time.Since(started).Milliseconds(),
			})
			fmt.Println(string(out))
			return nil
		}
	}
	// The channel closes when the context ends: the timeout passed.
	var waiting []string
	for _, id := range ids {
		if s, ok := latest[id]; !ok || s != status.CurrentStatus {
			if !ok {
				s = status.UnknownStatus
			}
			waiting = append(waiting, fmt.Sprintf("%s/%s in %s: %s", id.GroupKind, id.Name, id.Namespace, s))
		}
	}
	return fmt.Errorf("%d of %d objects not Current within %s:\n  %s", len(waiting), len(ids), *timeout, strings.Join(waiting, "\n  "))
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "kstatus-wait: %v\n", err)
		os.Exit(1)
	}
}
