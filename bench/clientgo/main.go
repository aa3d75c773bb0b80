// The client-go side of the benchmarks in bench/ (see bench/run.mjs and BENCHMARKS.md).
//
// One binary, one mode per run, one JSON line on stdout at the end (progress on stderr):
//
//	create    creates Pods bound to a kwok node (setup, not measured)
//	sync      SharedIndexInformer initial sync: time to HasSynced, peak RSS; with -follow DEPLOYMENT,
//	          the tracer's floor: informers on Deployments, ReplicaSets and Pods that do nothing,
//	          kept until the Deployment's rollout has ended, then CPU seconds and peak RSS
//	events    an informer whose update handler records when it saw each write (by sequence number)
//	write     the writer: patches an annotation on Pods at a fixed rate and records each response
//	offline   a recorded watch stream replayed from a file through client-go's decoder and informer
//	workqueue the same workqueue loops as bench/workqueue.mjs
//
// Everything talks only to the API server named in the kubeconfig (a local one) and every loop is
// bounded in count and time.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	restclientwatch "k8s.io/client-go/rest/watch"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/workqueue"
	clocktesting "k8s.io/utils/clock/testing"

	apiruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/streaming"
)

func main() {
	if len(os.Args) < 2 {
		fail("usage: clientgo create|sync|events|write|offline|workqueue [flags]")
	}
	mode, args := os.Args[1], os.Args[2:]
	var err error
	switch mode {
	case "create":
		err = create(args)
	case "sync":
		err = syncMode(args)
	case "events":
		err = events(args)
	case "write":
		err = write(args)
	case "offline":
		err = offline(args)
	case "workqueue":
		err = workqueueMode(args)
	default:
		fail("unknown mode " + mode)
	}
	if err != nil {
		fail(err.Error())
	}
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, "clientgo:", msg)
	os.Exit(1)
}

func emit(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		fail(err.Error())
	}
	os.Stdout.Write(append(b, '\n'))
}

func nowMs() float64 { return float64(time.Now().UnixNano()) / 1e6 }

func peakRSSKB() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return -1
	}
	return ru.Maxrss
}

// restConfig turns gzip off when noGzip is set: Go's HTTP transport asks for gzip by default, and
// kube-apiserver then compresses every List page above 128 KiB.
func restConfig(kubeconfig string, protobuf, noGzip bool) (*rest.Config, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, err
	}
	cfg.QPS = -1 // no client-side rate limit: the benchmark measures the informer, not the limiter
	cfg.UserAgent = "informer-trace-bench-clientgo"
	cfg.DisableCompression = noGzip
	if protobuf {
		cfg.ContentType = "application/vnd.kubernetes.protobuf"
		cfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	}
	return cfg, nil
}

// stripManagedFields is the transform the TypeScript informer applies by default.
func stripManagedFields(obj any) (any, error) {
	if a, err := meta.Accessor(obj); err == nil {
		a.SetManagedFields(nil)
	}
	return obj, nil
}

// ---- create ------------------------------------------------------------------------------------

func create(args []string) error {
	fs := flag.NewFlagSet("create", flag.ExitOnError)
	kubeconfig := fs.String("kubeconfig", "", "")
	ns := fs.String("namespace", "", "")
	count := fs.Int("count", 0, "")
	prefix := fs.String("prefix", "pod", "")
	nodes := fs.String("nodes", "", "comma-separated node names")
	labels := fs.String("labels", "", "extra labels k=v,k=v")
	concurrency := fs.Int("concurrency", 32, "")
	_ = fs.Parse(args)
	cfg, err := restConfig(*kubeconfig, true, false)
	if err != nil {
		return err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: *ns}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	// The ServiceAccount admission plugin needs it; kube-controller-manager may be stopped.
	if _, err := cs.CoreV1().ServiceAccounts(*ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	extra := map[string]string{}
	for _, kv := range strings.Split(*labels, ",") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			extra[k] = v
		}
	}
	podLabels := map[string]string{"app": "web", "tier": "frontend", "pod-template-hash": "6d4cf56db6", "app.kubernetes.io/part-of": "informer-bench"}
	for k, v := range extra {
		podLabels[k] = v
	}
	zero := int32(0)
	rs, err := cs.AppsV1().ReplicaSets(*ns).Create(ctx, &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: "web-6d4cf56db6", Labels: podLabels},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: &zero,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web", "pod-template-hash": "6d4cf56db6"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: podLabels}, Spec: podSpec("")},
		},
	}, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		rs, err = cs.AppsV1().ReplicaSets(*ns).Get(ctx, "web-6d4cf56db6", metav1.GetOptions{})
	}
	if err != nil {
		return err
	}
	nodeList := strings.Split(*nodes, ",")
	yes := true
	var created, existed, failed atomic.Int64
	var firstErr atomic.Value
	next := make(chan int)
	var wg sync.WaitGroup
	start := time.Now()
	for w := 0; w < *concurrency; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				pod := &corev1.Pod{
					ObjectMeta: metav1.ObjectMeta{
						Name:   fmt.Sprintf("%s-%d", *prefix, i),
						Labels: podLabels,
						Annotations: map[string]string{
							"prometheus.io/scrape":                    "true",
							"prometheus.io/port":                      "8080",
							"kubectl.kubernetes.io/default-container": "web",
						},
						OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs.Name, UID: rs.UID, Controller: &yes, BlockOwnerDeletion: &yes}},
					},
					Spec: podSpec(nodeList[i%len(nodeList)]),
				}
				_, err := cs.CoreV1().Pods(*ns).Create(ctx, pod, metav1.CreateOptions{FieldManager: "kube-controller-manager"})
				switch {
				case err == nil:
					created.Add(1)
				case apierrors.IsAlreadyExists(err):
					existed.Add(1)
				default:
					failed.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
				}
			}
		}()
	}
	for i := 0; i < *count; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	out := map[string]any{"created": created.Load(), "existed": existed.Load(), "failed": failed.Load(), "ms": time.Since(start).Milliseconds()}
	if e := firstErr.Load(); e != nil {
		out["firstError"] = e
	}
	emit(out)
	if failed.Load() > 0 {
		return fmt.Errorf("%d pods could not be created", failed.Load())
	}
	return nil
}

// podSpec is a typical web Deployment's Pod: one app container with probes, resources, env and
// a config volume, plus a small sidecar.
func podSpec(node string) corev1.PodSpec {
	return corev1.PodSpec{
		NodeName: node,
		Containers: []corev1.Container{
			{
				Name:  "web",
				Image: "registry.k8s.io/e2e-test-images/agnhost:2.53",
				Args:  []string{"netexec", "--http-port=8080"},
				Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}},
				Env: []corev1.EnvVar{
					{Name: "LOG_LEVEL", Value: "info"},
					{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
					{Name: "POD_IP", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "status.podIP"}}},
				},
				Resources: corev1.ResourceRequirements{
					Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("128Mi")},
					Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("256Mi")},
				},
				ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromString("http")}}, PeriodSeconds: 5},
				LivenessProbe:  &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromString("http")}}, InitialDelaySeconds: 10},
				VolumeMounts:   []corev1.VolumeMount{{Name: "config", MountPath: "/etc/web", ReadOnly: true}},
			},
			{
				Name:      "log-shipper",
				Image:     "registry.k8s.io/e2e-test-images/busybox:1.37.0-1",
				Command:   []string{"sh", "-c", "tail -F /var/log/web/access.log"},
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10m"), corev1.ResourceMemory: resource.MustParse("16Mi")}},
			},
		},
		Volumes: []corev1.Volume{{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "web-config"}}}}},
	}
}

// ---- informers ---------------------------------------------------------------------------------

type informerFlags struct {
	kubeconfig, namespace, selector, transform string
	protobuf, noGzip                           bool
}

func (f *informerFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.kubeconfig, "kubeconfig", "", "")
	fs.StringVar(&f.namespace, "namespace", "", "")
	fs.StringVar(&f.selector, "selector", "", "label selector")
	fs.StringVar(&f.transform, "transform", "none", "none|strip")
	fs.BoolVar(&f.protobuf, "protobuf", false, "")
	fs.BoolVar(&f.noGzip, "no-gzip", false, "do not ask for gzip (client-go's rest.Config.DisableCompression)")
}

// newInformer is what a clientset-based informer factory builds for Pods (namespace index
// included), with an optional label selector and transform.
func (f *informerFlags) newInformer() (cache.SharedIndexInformer, error) {
	cfg, err := restConfig(f.kubeconfig, f.protobuf, f.noGzip)
	if err != nil {
		return nil, err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	sel := f.selector
	lw := cache.NewFilteredListWatchFromClient(cs.CoreV1().RESTClient(), "pods", f.namespace, func(o *metav1.ListOptions) { o.LabelSelector = sel })
	inf := cache.NewSharedIndexInformer(lw, &corev1.Pod{}, 0, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	if f.transform == "strip" {
		if err := inf.SetTransform(stripManagedFields); err != nil {
			return nil, err
		}
	}
	return inf, nil
}

func syncMode(args []string) error {
	fs := flag.NewFlagSet("sync", flag.ExitOnError)
	var f informerFlags
	f.register(fs)
	timeout := fs.Duration("timeout", 5*time.Minute, "")
	follow := fs.String("follow", "", "a Deployment in -namespace: watch it, its ReplicaSets and Pods until its rollout ends")
	generation := fs.Int64("generation", 0, "with -follow: the generation whose rollout ends the run")
	_ = fs.Parse(args)
	if *follow != "" {
		return followMode(f, *follow, *generation, *timeout)
	}
	inf, err := f.newInformer()
	if err != nil {
		return err
	}
	var adds atomic.Int64
	reg, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: func(any) { adds.Add(1) }})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	start := time.Now()
	go inf.Run(ctx.Done())
	for !reg.HasSynced() {
		if ctx.Err() != nil {
			return errors.New("timed out waiting for the cache to sync")
		}
		time.Sleep(time.Millisecond)
	}
	syncMs := float64(time.Since(start).Microseconds()) / 1000
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	emit(map[string]any{
		"syncMs":      syncMs,
		"objects":     len(inf.GetStore().ListKeys()),
		"adds":        adds.Load(),
		"peakRssKB":   peakRSSKB(),
		"heapInUseMB": float64(ms.HeapInuse) / (1 << 20),
	})
	return nil
}

// followMode is the floor of bench/tracer-scale.mjs: what watching a rollout costs client-go at the
// least. Three shared informers (the Deployment, ReplicaSets, Pods of the namespace) with handlers
// that do nothing; every 100 ms the stores are read to tell when the rollout has ended, as the
// tracer tells it: the Deployment's controller observed `generation` and reports every replica
// updated, ready and available, and no other Pod is left (old ones deleted).
func followMode(f informerFlags, name string, generation int64, timeout time.Duration) error {
	cfg, err := restConfig(f.kubeconfig, f.protobuf, f.noGzip)
	if err != nil {
		return err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	ns := f.namespace
	deploys := cache.NewSharedIndexInformer(cache.NewListWatchFromClient(cs.AppsV1().RESTClient(), "deployments", ns, fields.Everything()), &appsv1.Deployment{}, 0, cache.Indexers{})
	sets := cache.NewSharedIndexInformer(cache.NewListWatchFromClient(cs.AppsV1().RESTClient(), "replicasets", ns, fields.Everything()), &appsv1.ReplicaSet{}, 0, cache.Indexers{})
	pods := cache.NewSharedIndexInformer(cache.NewListWatchFromClient(cs.CoreV1().RESTClient(), "pods", ns, fields.Everything()), &corev1.Pod{}, 0, cache.Indexers{})
	var events atomic.Int64
	count := cache.ResourceEventHandlerFuncs{AddFunc: func(any) { events.Add(1) }, UpdateFunc: func(_, _ any) { events.Add(1) }, DeleteFunc: func(any) { events.Add(1) }}
	var synced []cache.InformerSynced
	for _, inf := range []cache.SharedIndexInformer{deploys, sets, pods} {
		if f.transform == "strip" {
			if err := inf.SetTransform(stripManagedFields); err != nil {
				return err
			}
		}
		reg, err := inf.AddEventHandler(count)
		if err != nil {
			return err
		}
		synced = append(synced, reg.HasSynced)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	for _, inf := range []cache.SharedIndexInformer{deploys, sets, pods} {
		go inf.Run(ctx.Done())
	}
	if !cache.WaitForCacheSync(ctx.Done(), synced...) {
		return errors.New("caches did not sync")
	}
	emit(map[string]any{"ready": true})
	start := time.Now()
	ended := func() bool {
		obj, ok, _ := deploys.GetStore().GetByKey(ns + "/" + name)
		if !ok {
			return false
		}
		d := obj.(*appsv1.Deployment)
		want := int32(1)
		if d.Spec.Replicas != nil {
			want = *d.Spec.Replicas
		}
		st := d.Status
		return d.Generation >= generation && st.ObservedGeneration >= d.Generation && st.Replicas == want && st.UpdatedReplicas == want &&
			st.ReadyReplicas == want && st.AvailableReplicas == want && int32(len(pods.GetStore().ListKeys())) == want
	}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for !ended() {
		select {
		case <-ctx.Done():
			return errors.New("the rollout did not end in time")
		case <-tick.C:
		}
	}
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	cpu := float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
	emit(map[string]any{"ms": float64(time.Since(start).Milliseconds()), "cpuSec": cpu, "peakRssKB": ru.Maxrss, "events": events.Load()})
	return nil
}

func events(args []string) error {
	fs := flag.NewFlagSet("events", flag.ExitOnError)
	var f informerFlags
	f.register(fs)
	expect := fs.Int("expect", 0, "writes to wait for")
	seqStart := fs.Int("seq-start", 0, "")
	idle := fs.Duration("idle", 10*time.Second, "give up after this long without a new write seen")
	_ = fs.Parse(args)
	inf, err := f.newInformer()
	if err != nil {
		return err
	}
	times := make([]float64, *expect)
	var seen, updates atomic.Int64
	var last atomic.Int64
	done := make(chan struct{})
	record := func(obj any) {
		t := nowMs()
		updates.Add(1)
		pod, ok := obj.(*corev1.Pod)
		if !ok {
			return
		}
		s, err := strconv.Atoi(pod.Annotations["bench/seq"])
		if err != nil {
			return
		}
		i := s - *seqStart
		if i < 0 || i >= len(times) || times[i] != 0 {
			return
		}
		times[i] = t
		last.Store(time.Now().UnixNano())
		if seen.Add(1) == int64(len(times)) {
			close(done)
		}
	}
	reg, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{UpdateFunc: func(_, n any) { record(n) }})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	go inf.Run(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), reg.HasSynced) {
		return errors.New("cache did not sync")
	}
	emit(map[string]any{"ready": true})
	last.Store(time.Now().UnixNano())
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
wait:
	for {
		select {
		case <-done:
			break wait
		case <-tick.C:
			// The clock starts at "ready"; the harness starts the writer right after.
			if time.Since(time.Unix(0, last.Load())) > *idle {
				break wait
			}
		}
	}
	emit(map[string]any{"times": times, "seen": seen.Load(), "updates": updates.Load(), "peakRssKB": peakRSSKB()})
	return nil
}

// ---- writer ------------------------------------------------------------------------------------

func write(args []string) error {
	fs := flag.NewFlagSet("write", flag.ExitOnError)
	kubeconfig := fs.String("kubeconfig", "", "")
	ns := fs.String("namespace", "", "")
	prefix := fs.String("prefix", "pod", "")
	pods := fs.Int("pods", 1000, "")
	rate := fs.Float64("rate", 100, "writes/s; 0 = as fast as the server allows")
	count := fs.Int("count", 1000, "")
	seqStart := fs.Int("seq-start", 0, "")
	workers := fs.Int("workers", 64, "")
	duration := fs.Duration("duration", time.Minute, "stop starting writes after this long")
	_ = fs.Parse(args)
	cfg, err := restConfig(*kubeconfig, false, false)
	if err != nil {
		return err
	}
	cfg.Burst = 1000
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	// Writes in flight when the duration is up may finish within 30 s more.
	ctx, cancel := context.WithTimeout(context.Background(), *duration+30*time.Second)
	defer cancel()
	rc := cs.CoreV1().RESTClient()
	times := make([]float64, *count)
	sentAt := make([]float64, *count)
	var failed atomic.Int64
	var firstErr atomic.Value
	next := make(chan int, *workers)
	var wg sync.WaitGroup
	for w := 0; w < *workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				seq := *seqStart + i
				body := fmt.Sprintf(`{"metadata":{"annotations":{"bench/seq":"%d"}}}`, seq)
				name := fmt.Sprintf("%s-%d", *prefix, i%*pods)
				// DoRaw: the answer is read, not decoded, so the response time is not inflated
				// by the writer's own decoding.
				sentAt[i] = nowMs()
				_, err := rc.Patch(types.MergePatchType).Namespace(*ns).Resource("pods").Name(name).Body([]byte(body)).DoRaw(ctx)
				if err != nil {
					failed.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
					continue
				}
				times[i] = nowMs()
			}
		}()
	}
	start := time.Now()
	sent := 0
	for i := 0; i < *count && time.Since(start) < *duration; i++ {
		if *rate > 0 {
			due := start.Add(time.Duration(float64(i) / *rate * float64(time.Second)))
			if d := time.Until(due); d > 0 {
				time.Sleep(d)
			}
		}
		next <- i
		sent++
	}
	close(next)
	wg.Wait()
	elapsed := time.Since(start)
	out := map[string]any{"times": times, "sentAt": sentAt, "sent": sent, "failed": failed.Load(), "ms": float64(elapsed.Microseconds()) / 1000, "startMs": float64(start.UnixNano()) / 1e6}
	if e := firstErr.Load(); e != nil {
		out["firstError"] = e
	}
	emit(out)
	return nil
}

// ---- offline -----------------------------------------------------------------------------------

// fileWatch is a ListerWatcher whose first watch is the recorded stream, decoded exactly as the
// REST client decodes a watch response; later watches stay open and empty until stopped.
type fileWatch struct {
	file        string
	contentType string
	watched     atomic.Bool
}

func (l *fileWatch) List(metav1.ListOptions) (apiruntime.Object, error) {
	return &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}}, nil
}

func (l *fileWatch) Watch(metav1.ListOptions) (watch.Interface, error) {
	if l.watched.Swap(true) {
		return watch.NewFake(), nil
	}
	f, err := os.Open(l.file)
	if err != nil {
		return nil, err
	}
	negotiator := apiruntime.NewClientNegotiator(scheme.Codecs.WithoutConversion(), schema.GroupVersion{Version: "v1"})
	objectDecoder, streamingSerializer, framer, err := negotiator.StreamDecoder(l.contentType, nil)
	if err != nil {
		return nil, err
	}
	frameReader := framer.NewFrameReader(f)
	return watch.NewStreamWatcher(restclientwatch.NewDecoder(streaming.NewDecoder(frameReader, streamingSerializer), objectDecoder), nil), nil
}

func offline(args []string) error {
	fs := flag.NewFlagSet("offline", flag.ExitOnError)
	file := fs.String("file", "", "")
	expect := fs.Int64("expect", 0, "events in the file")
	transform := fs.String("transform", "none", "none|strip")
	encoding := fs.String("encoding", "json", "json|protobuf: what the file holds")
	_ = fs.Parse(args)
	contentType := "application/json"
	if *encoding == "protobuf" {
		contentType = "application/vnd.kubernetes.protobuf"
	}
	// Watch lists would need the initial-events bookmark; the recording is a plain watch.
	inf := cache.NewSharedIndexInformer(&fileWatch{file: *file, contentType: contentType}, &corev1.Pod{}, 0, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	if *transform == "strip" {
		_ = inf.SetTransform(stripManagedFields)
	}
	var n atomic.Int64
	done := make(chan struct{})
	count := func() {
		if n.Add(1) == *expect {
			close(done)
		}
	}
	_, _ = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: func(any) { count() }, UpdateFunc: func(_, _ any) { count() }, DeleteFunc: func(any) { count() }})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	start := time.Now()
	go inf.Run(ctx.Done())
	select {
	case <-done:
	case <-ctx.Done():
		return fmt.Errorf("saw %d of %d events", n.Load(), *expect)
	}
	emit(map[string]any{"ms": float64(time.Since(start).Microseconds()) / 1000, "events": n.Load(), "peakRssKB": peakRSSKB()})
	return nil
}

// ---- workqueue ---------------------------------------------------------------------------------

const addsPerRun = 200_000
const rateLimitedCallsPerRun = 200_000

func keysOf(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("namespace-%d/object-%d", i%97, i)
	}
	return out
}

// addGetDone mirrors bench/workqueue.mjs addGetDone line for line.
func addGetDone(distinct int) (calls, items int, seconds float64) {
	keys := keysOf(distinct)
	q := workqueue.NewTyped[string]()
	perRound := max(distinct, 1000)
	next := 0
	start := time.Now()
	for added := 0; added < addsPerRun; {
		end := min(addsPerRun, added+perRound)
		for ; added < end; added++ {
			q.Add(keys[next])
			next++
			if next == distinct {
				next = 0
			}
		}
		for q.Len() > 0 {
			item, _ := q.Get()
			q.Done(item)
			items++
		}
	}
	seconds = time.Since(start).Seconds()
	q.ShutDown()
	return addsPerRun + 2*items, items, seconds
}

// addRateLimitedForget mirrors bench/workqueue.mjs: a fake clock whose timers never fire.
func addRateLimitedForget(distinct int) (calls, items int, seconds float64) {
	keys := keysOf(distinct)
	fake := clocktesting.NewFakeClock(time.Now())
	q := workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](), workqueue.TypedRateLimitingQueueConfig[string]{Clock: fake})
	next := 0
	start := time.Now()
	for i := 0; i < rateLimitedCallsPerRun; i++ {
		key := keys[next]
		next++
		if next == distinct {
			next = 0
		}
		q.AddRateLimited(key)
		calls++
		if i&3 == 3 {
			q.Forget(key)
			calls++
		}
	}
	seconds = time.Since(start).Seconds()
	q.ShutDown()
	return calls, 0, seconds
}

func workqueueMode(args []string) error {
	fs := flag.NewFlagSet("workqueue", flag.ExitOnError)
	runs := fs.Int("runs", 7, "")
	only := fs.String("only", "", "scenario index (0-4); empty = all")
	_ = fs.Parse(args)
	type scenario struct {
		name string
		keys int
		run  func(int) (int, int, float64)
	}
	scenarios := []scenario{
		{"Add/Get/Done", 1, addGetDone},
		{"Add/Get/Done", 100, addGetDone},
		{"Add/Get/Done", 100_000, addGetDone},
		{"AddRateLimited/Forget", 1_000, addRateLimitedForget},
		{"AddRateLimited/Forget", 100_000, addRateLimitedForget},
	}
	var results []map[string]any
	for i, s := range scenarios {
		if *only != "" && *only != strconv.Itoa(i) {
			continue
		}
		s.run(s.keys) // warm-up
		var rates []float64
		calls := 0
		for r := 0; r < *runs; r++ {
			runtime.GC()
			c, _, sec := s.run(s.keys)
			calls = c
			rates = append(rates, float64(c)/sec)
		}
		sort.Float64s(rates)
		results = append(results, map[string]any{"name": s.name, "keys": s.keys, "calls": calls, "rates": rates})
	}
	emit(map[string]any{"scenarios": results, "go": runtime.Version(), "gomaxprocs": runtime.GOMAXPROCS(0)})
	return nil
}
